import { createRequire } from 'node:module';

/**
 * @duckdb/node-api, loaded with require(). The package is CommonJS, and Node's ESM loader reads
 * and parses an imported CommonJS module once more to list its named exports, following every
 * re-export: over this package's hundred re-exporting files that doubled the time it takes to load,
 * a third of a CLI command that opens the data dir (docs/architecture.md#command-start-up). Types come from
 * `import type`, which costs nothing at run time.
 */
export const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');
