#!/usr/bin/env node
// npm run test:postgres [-- vitest filters and flags]: the behaviour suites (test/http, test/faults,
// test/cli) and the several-instances suite (test/multi) on PostgreSQL (docs/testing.md#postgresql-and-several-instances).
// The database: PARTNERKIT_TEST_DATABASE_URL when set (each test makes and drops a schema of its
// own there), else a throwaway cluster made by Debian's pg_virtualenv for this run, else none: the
// run is skipped with a note, or fails when PARTNERKIT_REQUIRE_POSTGRES=1 (CI).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SUITES = ['test/http', 'test/faults', 'test/cli', 'test/multi'];
const VITEST = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url));
/** Set on the run of this script that pg_virtualenv starts, inside the throwaway cluster's environment. */
const INSIDE_VIRTUALENV = 'PARTNERKIT_IN_PG_VIRTUALENV';
/** Several `serve` processes and vitest's two workers each hold a handful of connections. */
const MAX_CONNECTIONS = 300;

const args = process.argv.slice(2);
const env = process.env;

function run(command, commandArgs, extraEnv) {
  const result = spawnSync(command, commandArgs, { stdio: 'inherit', env: { ...env, ...extraEnv } });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function vitest(url) {
  const where = new URL(url);
  console.error(`PostgreSQL suites on ${where.host}${where.pathname}`);
  return run(process.execPath, [VITEST, 'run', ...(args.length > 0 ? args : SUITES)], { PARTNERKIT_TEST_DATABASE_URL: url });
}

/** The URL of the cluster pg_virtualenv made, from the variables it exports. */
function virtualenvUrl() {
  const { PGUSER, PGPASSWORD, PGHOST, PGPORT, PGDATABASE } = env;
  if (!PGUSER || !PGPASSWORD || !PGHOST || !PGPORT || !PGDATABASE) throw new Error('pg_virtualenv exported no PGUSER/PGPASSWORD/PGHOST/PGPORT/PGDATABASE');
  return `postgres://${encodeURIComponent(PGUSER)}:${encodeURIComponent(PGPASSWORD)}@${PGHOST}:${PGPORT}/${encodeURIComponent(PGDATABASE)}`;
}

const hasVirtualenv = () => !spawnSync('pg_virtualenv', ['-h'], { stdio: 'ignore' }).error;

let status;
if (env.PARTNERKIT_TEST_DATABASE_URL) {
  status = vitest(env.PARTNERKIT_TEST_DATABASE_URL);
} else if (env[INSIDE_VIRTUALENV]) {
  status = vitest(virtualenvUrl());
} else if (hasVirtualenv()) {
  // -t: the cluster lives in a temporary directory even for root, so parallel runs do not collide.
  // A throwaway cluster needs no durability: without fsync each test's schema is made several times faster.
  const settings = [`max_connections=${MAX_CONNECTIONS}`, 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'].flatMap((setting) => ['-o', setting]);
  status = run('pg_virtualenv', ['-t', ...settings, process.execPath, fileURLToPath(import.meta.url), ...args], {
    [INSIDE_VIRTUALENV]: '1',
  });
} else {
  const required = env.PARTNERKIT_REQUIRE_POSTGRES === '1';
  console.error(
    `${required ? 'FAILED' : 'SKIPPED'}: the PostgreSQL suites (${SUITES.join(', ')}) did not run: PARTNERKIT_TEST_DATABASE_URL is not set and pg_virtualenv is not installed.\n` +
      'To run them, install Debian\'s PostgreSQL (apt-get install postgresql: pg_virtualenv makes a throwaway cluster for the run),\n' +
      'or set PARTNERKIT_TEST_DATABASE_URL=postgres://user:password@host:port/database (psql must be on PATH; each test makes and drops a schema of its own).' +
      (required ? '\nPARTNERKIT_REQUIRE_POSTGRES=1: a run without PostgreSQL fails.' : ''),
  );
  status = required ? 1 : 0;
}
process.exit(status);
