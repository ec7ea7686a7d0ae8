import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // test/multi runs several servers on one PostgreSQL database: only in the PostgreSQL run
    // (`npm run test:postgres`), never passing vacuously on DuckDB.
    exclude: [...configDefaults.exclude, ...(process.env.PARTNERKIT_TEST_DATABASE_URL ? [] : ['test/multi/**'])],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // CLI and server tests spawn processes; two workers match the 2-core machines this runs on.
    maxWorkers: 2,
  },
});
