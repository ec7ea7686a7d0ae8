import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(resolve(ROOT, file), 'utf8'));

/** The files `npm publish` would ship, from the build (npm run build comes first, as for every CLI test). */
function packedFiles(): string[] {
  const [pack] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  return (pack.files as Array<{ path: string }>).map((file) => file.path);
}

describe('the published package', () => {
  const files = packedFiles();

  test('ships no benchmark and no test: nothing under bench/ or test/, built or not', () => {
    expect(files.filter((path) => /(^|\/)(bench|test)\//.test(path))).toEqual([]);
  });

  test("ships what the CLI and the SDK load: the bin, every command of the manifest, the hooks, the SDK's entry, the pages and the Stripe fixtures", () => {
    const manifest = read('package.json');
    const commands = Object.values(read('oclif.manifest.json').commands as Record<string, { relativePath: string[] }>).map((c) => c.relativePath.join('/'));
    const entries = [
      ...Object.values(manifest.bin as Record<string, string>),
      ...Object.values(manifest.exports as Record<string, string>),
      ...Object.values(manifest.oclif.hooks as Record<string, string>),
      ...commands,
    ].map((path) => path.replace(/^\.\//, '').replace(/\.ts$/, '.js'));
    expect(commands.length).toBeGreaterThan(30);
    expect(entries.filter((path) => !files.includes(path))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'oclif.manifest.json', 'package.json', 'dist/web/dashboard.html', 'dist/web/portal.html']));
    expect(files.some((path) => path.startsWith('fixtures/stripe/'))).toBe(true);
  });

  test('carries the MIT licence that package.json names, to partnerkit contributors', () => {
    expect(read('package.json').license).toBe('MIT');
    const licence = readFileSync(resolve(ROOT, 'LICENSE'), 'utf8');
    expect(licence.split('\n')[0]).toBe('MIT License');
    expect(licence).toMatch(/^Copyright \(c\) \d{4} partnerkit contributors$/m);
  });
});
