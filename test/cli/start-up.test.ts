import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runJson, startServe, tempDataDir } from '../helpers/cli.js';
import { TEST_ENGINE } from '../helpers/engine.js';

// What a command loads, the rule of docs/architecture.md#command-start-up: a command that talks to a server loads
// no store, app, schemas or Stripe; one that opens the data dir loads them, but only the route module
// its request needs, and not Fastify's unused compilers, the OpenAPI plugin's YAML library, the
// date-fns index or the stripe package. Checked on the build (`npm run build` first), as the other
// CLI tests.

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');

/** Packages that only the path opening the data dir (or `serve`) may load. */
const SERVER_SIDE = ['@duckdb/node-api', 'fastify', '@fastify/cors', '@fastify/rate-limit', '@fastify/swagger', 'fastify-type-provider-zod', 'zod', 'stripe', 'date-fns', '@date-fns/utc'];

const IMPORT = /(?:^|[;\n])\s*(?:import|export)\s+(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Every module a built file imports statically, with the path that reaches it; with `dynamic`, also
 * what it may import with import() (a command's in-process path: the app and its route modules).
 */
function staticGraph(entry: string, { dynamic = false } = {}): Map<string, string[]> {
  const reached = new Map<string, string[]>([[entry, [entry]]]);
  const queue = [entry];
  for (let file = queue.shift(); file; file = queue.shift()) {
    const source = readFileSync(file, 'utf8');
    const specifiers = [...source.matchAll(IMPORT), ...(dynamic ? source.matchAll(DYNAMIC_IMPORT) : [])];
    for (const [, specifier] of specifiers) {
      const target = specifier.startsWith('.') ? resolve(dirname(file), specifier) : specifier;
      if (reached.has(target)) continue;
      reached.set(target, [...reached.get(file)!, target]);
      if (specifier.startsWith('.')) queue.push(target);
    }
  }
  return reached;
}

const packageOf = (specifier: string) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');
const chain = (path: string[]) => path.map((p) => (p.startsWith('/') ? relative(DIST, p) : p)).join(' → ');

function commandFiles(dir = join(DIST, 'commands')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? commandFiles(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : [],
  );
}

describe('what a command imports before it runs (docs/architecture.md#command-start-up)', () => {
  test('the oclif manifest names every command and ships in the package, so oclif imports only the command it runs', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, unknown> };
    const ids = commandFiles().map((f) => relative(join(DIST, 'commands'), f).replace(/\.js$/, '').replaceAll('/', ':'));
    expect(Object.keys(manifest.commands).sort()).toEqual(ids.sort());
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    expect(packed.files.map((f: { path: string }) => f.path)).toContain('oclif.manifest.json');
  });

  test('no command but serve imports the store, the app, zod, stripe, date-fns or the progress bar statically', () => {
    const files = commandFiles().filter((f) => !f.endsWith('/commands/serve.js'));
    expect(files.length).toBeGreaterThan(15);
    const offending = files.flatMap((file) =>
      [...staticGraph(file)].filter(([m]) => [...SERVER_SIDE, 'cli-progress'].includes(packageOf(m))).map(([, path]) => chain(path)),
    );
    expect(offending).toEqual([]);
  });

  test('the in-process app loads DuckDB, Fastify and its plugins with require() and date-fns by function', () => {
    const graph = staticGraph(join(DIST, 'src/local.js'), { dynamic: true });
    const required = ['@duckdb/node-api', 'fastify', '@fastify/cors', '@fastify/rate-limit', '@fastify/swagger'];
    expect([...graph.keys()].filter((m) => [...required, 'date-fns'].includes(m)).map((m) => chain(graph.get(m)!))).toEqual([]);
    expect([...graph.keys()].filter((m) => m.startsWith('date-fns/')).length).toBeGreaterThan(0);
  });
});

/** Runs a command recording every module it loads; returns the log's lines. */
async function loadedBy(args: string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'partnerkit-modules-'));
  try {
    const file = join(dir, 'modules.log');
    const result = await runCli(args, {
      ...env,
      PARTNERKIT_MODULE_LOG: file,
      NODE_OPTIONS: `--import=${resolve(import.meta.dirname, '../helpers/module-log.mjs')}`,
    });
    expect(result.code, result.stderr).toBe(0);
    return readFileSync(file, 'utf8').split('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const inModules = (name: string) => new RegExp(`node_modules/${name}/`);
const UNDICI = 'NativeModule internal/deps/undici/undici';

describe('what a command loads as it runs (docs/architecture.md#command-start-up)', () => {
  test('with a server: oclif, the SDK and the table, nothing of the store, the app or fetch', async () => {
    const dir = tempDataDir();
    const env = cliEnv(dir);
    await runJson(['program', 'create', '--name', 'Acme'], env);
    const server = await startServe(dir);
    for (const args of [['program', 'list', '--url', server.url], ['report', 'performance', '1', '--url', server.url]]) {
      const loaded = await loadedBy(args, env);
      expect(loaded.some((m) => inModules('@oclif/core').test(m)), args.join(' ')).toBe(true);
      expect(loaded.filter((m) => [...SERVER_SIDE, 'ajv', 'yaml', 'cli-progress'].some((p) => inModules(p).test(m)) || m === UNDICI), args.join(' ')).toEqual([]);
    }
  });

  test('opening the data dir: the engine driver, Fastify and the one route module the request needs, but not the other driver, ajv, OpenAPI, CORS or rate-limit plugin, YAML, date-fns index, stripe, progress bar or fetch', async () => {
    const [driver, otherDriver] = TEST_ENGINE === 'duckdb' ? ['@duckdb/node-api', 'pg'] : ['pg', '@duckdb/node-api'];
    // pg looks for Cloudflare Workers by touching the global Response, which loads Node's fetch.
    const fetchLoaded = (m: string) => m === UNDICI && driver !== 'pg';
    const env = cliEnv(tempDataDir());
    await runJson(['program', 'create', '--name', 'Acme'], env);
    const cases: Array<[string[], string[]]> = [
      [['program', 'list'], ['admin.js']],
      [['report', 'performance', '1'], ['reports.js']],
    ];
    for (const [args, routes] of cases) {
      const loaded = await loadedBy(args, env);
      for (const used of [driver, 'fastify', 'zod']) expect(loaded.some((m) => inModules(used).test(m)), used).toBe(true);
      expect(loaded.filter((m) => [otherDriver, 'ajv', 'yaml', '@fastify/swagger', '@fastify/cors', '@fastify/rate-limit', 'stripe', 'cli-progress'].some((p) => inModules(p).test(m)) || m.endsWith('node_modules/date-fns/index.js') || fetchLoaded(m))).toEqual([]);
      const routeModules = new Set(loaded.filter((m) => m.includes('/dist/src/http/routes/')).map((m) => m.split('/').at(-1)));
      expect([...routeModules], args.join(' ')).toEqual(routes);
    }
  });
});
