// Adds lock entries for the platform builds of optional dependencies (DuckDB bindings, Deno) that
// the registry used here does not serve: without them `npm ci` rejects the lock as out of sync.
// Each entry names its os/cpu, so npm skips it on other platforms and never downloads it.
// Run after `npm install` whenever dependencies change: node scripts/complete-lockfile.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const added = [];
for (const meta of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const platform = /(darwin|win32|linux)-(x64|arm64)(?:-(glibc|musl))?$/.exec(name);
    if (lock.packages[key] || !platform) continue;
    // Keys in the order npm writes them, so a later `npm install` leaves the file as it is.
    lock.packages[key] = { version, cpu: [platform[2]], ...(platform[3] ? { libc: [platform[3]] } : {}), optional: true, os: [platform[1]] };
    added.push(key);
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.join(', ')}` : 'lock file complete');
