import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(resolve(ROOT, file), 'utf8'));

describe('installing partnerkit (docs/architecture.md#dependencies-and-installation)', () => {
  test('every locked package supports the oldest Node that engines.node admits: npm never warns EBADENGINE on it', () => {
    const oldest = semver.minVersion(read('package.json').engines.node)!.version;
    const lock = read('package-lock.json') as { packages: Record<string, { engines?: { node?: string } }> };
    const refusing = Object.entries(lock.packages)
      .filter(([, entry]) => typeof entry.engines?.node === 'string' && !semver.satisfies(oldest, entry.engines.node))
      .map(([path, entry]) => `${path} (${entry.engines!.node})`);
    expect(refusing).toEqual([]);
  });

  test('the lock records exactly the manifest, so npm install has nothing to rewrite', () => {
    const manifest = read('package.json');
    const root = read('package-lock.json').packages[''];
    expect(root.dependencies).toEqual(manifest.dependencies);
    expect(root.devDependencies).toEqual(manifest.devDependencies);
    expect(root.engines).toEqual(manifest.engines);
    expect(read('package-lock.json').lockfileVersion).toBe(3);
  });
});
