import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(file, 'utf8');

describe('docs/cli-reference.md', () => {
  const generated = join(mkdtempSync(join(tmpdir(), 'partnerkit-cli-reference-')), 'cli-reference.md');
  execFileSync(process.execPath, ['scripts/docs-cli.mjs', generated], { cwd: ROOT, stdio: 'ignore' });

  test('is what the built commands generate (npm run docs:cli writes it)', () => {
    expect(read(resolve(ROOT, 'docs/cli-reference.md'))).toBe(read(generated));
  });

  test('has a section for every command of the manifest, with its usage, and its examples where it has some', () => {
    const reference = read(generated);
    const manifest = JSON.parse(read(resolve(ROOT, 'oclif.manifest.json'))) as { commands: Record<string, { examples?: unknown[] }> };
    const sections = reference.split('\n## ').slice(1);
    for (const [id, command] of Object.entries(manifest.commands)) {
      const section = sections.find((s) => s.startsWith(`\`partnerkit ${id.replaceAll(':', ' ')}`));
      expect(section, id).toBeDefined();
      expect(section, id).toContain(`USAGE\n  $ partnerkit ${id.replaceAll(':', ' ')}`);
      if (command.examples?.length) expect(section, id).toContain('\nEXAMPLES\n');
    }
  });
});
