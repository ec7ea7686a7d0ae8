// `NODE_OPTIONS=--import=<this file>` with PARTNERKIT_MODULE_LOG=<file>: the process writes every module
// it loaded to that file, one per line — ESM as resolved (by module-log-hooks.mjs, which appends as it
// goes), then at exit the CommonJS modules and Node's own (process.moduleLoadList).
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.PARTNERKIT_MODULE_LOG;
register('./module-log-hooks.mjs', import.meta.url, { data: { file } });
process.on('exit', () => {
  const cjs = Object.keys(createRequire(import.meta.url).cache);
  appendFileSync(file, [...cjs, ...process.moduleLoadList].map((m) => `${m}\n`).join(''));
});
