#!/usr/bin/env node
// npm run docs:config: writes the README's configuration table from the flags of the built `serve`
// (docs/operations.md#configuration). test/unit/configuration.test.ts fails when the README differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { default: Serve } = await import('../dist/commands/serve.js');
const { configurationTable, withConfigurationTable } = await import('../dist/src/cli/configuration.js');

const readme = fileURLToPath(new URL('../README.md', import.meta.url));
writeFileSync(readme, withConfigurationTable(readFileSync(readme, 'utf8'), configurationTable({ ...Serve.flags, ...Serve.baseFlags })));
