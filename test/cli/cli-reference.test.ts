import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const DOCS = resolve(ROOT, 'docs');
const read = (file: string) => readFileSync(file, 'utf8');
/** The reference's files under a docs directory: the index and every topic's page. */
const referenceFiles = (docs: string) => ['cli-reference.md', ...readdirSync(join(docs, 'cli-reference')).map((f) => `cli-reference/${f}`)].sort();

describe('docs/cli-reference.md and docs/cli-reference/', () => {
  const generated = mkdtempSync(join(tmpdir(), 'partnerkit-cli-reference-'));
  execFileSync(process.execPath, ['scripts/docs-cli.mjs', generated], { cwd: ROOT, stdio: 'ignore' });

  test('are what the built commands generate (npm run docs:cli writes them)', () => {
    expect(referenceFiles(DOCS)).toEqual(referenceFiles(generated));
    for (const file of referenceFiles(generated)) expect(read(join(DOCS, file)), file).toBe(read(join(generated, file)));
  });

  test('give every command of the manifest a section on its topic page, with its usage, and its examples where it has some', () => {
    const manifest = JSON.parse(read(resolve(ROOT, 'oclif.manifest.json'))) as { commands: Record<string, { examples?: unknown[] }> };
    for (const [id, command] of Object.entries(manifest.commands)) {
      const words = id.replaceAll(':', ' ');
      const page = read(join(generated, 'cli-reference', `${words.split(' ')[0]}.md`));
      const section = page.split('\n## ').find((s) => s.startsWith(`\`partnerkit ${words}`));
      expect(section, id).toBeDefined();
      expect(section, id).toContain(`USAGE\n  $ partnerkit ${words}`);
      if (command.examples?.length) expect(section, id).toContain('\nEXAMPLES\n');
    }
    expect(read(join(generated, 'cli-reference.md'))).toContain('- [`partnerkit payout`](cli-reference/payout.md): Payouts:');
  });

  test('keeps every page short', () => {
    for (const file of referenceFiles(generated)) expect(read(join(generated, file)).split('\n').length, file).toBeLessThanOrEqual(700);
  });
});
