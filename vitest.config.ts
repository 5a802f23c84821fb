import { defineConfig } from 'vitest/config';

/**
 * Four projects (ARCHITECTURE "Tests"; journeys is the unit level of the journeys/ folder):
 *  - unit: pure rules, no services; part of `npm run check`.
 *  - workflow: Temporal time-skipping environment (Java test server), activities faked.
 *  - integration: the api over real HTTP against PostgreSQL, Redis, Temporal and the SES emulator.
 */
const shared = ['**/node_modules/**', '.data/**'];

/**
 * Quiet runs: the Temporal SDK's INFO lines (test/quiet-temporal.ts) are noise in test output;
 * warnings and errors still show. (The AWS SDK's notice about an old Node is left on: on the
 * project's Node 24 it does not print, and on an older one it should.)
 */
const quietTemporal = ['test/quiet-temporal.ts'];

export default defineConfig({
  test: {
    // two cores: more parallel files only fight over CPU with Temporal, PostgreSQL and the Java test server
    maxWorkers: 2,
    // the default reporter, then one line per project: files, tests, wall-clock time
    reporters: ['default', './test/run-summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{apps,packages,temporal,runtime,testing,scripts,bench,test}/**/*.test.{ts,tsx}'],
          exclude: [...shared, '**/*.int.test.{ts,tsx}', '**/*.wf.test.{ts,tsx}', '**/*.browser.test.{ts,tsx}'],
        },
      },
      {
        test: {
          // the journeys' own tests on the kit's fast mode (unit level: no services). Files share one
          // module cache per worker, so the kit, core and the template registry load once per worker
          // instead of once per file (most of a journey file's time): the kit keeps no state between tests
          name: 'journeys',
          include: ['journeys/**/*.test.{ts,tsx}'],
          exclude: [...shared, '**/*.int.test.{ts,tsx}', '**/*.wf.test.{ts,tsx}', '**/*.browser.test.{ts,tsx}'],
          isolate: false,
        },
      },
      {
        test: {
          name: 'workflow',
          setupFiles: quietTemporal,
          include: ['{apps,packages,journeys,temporal,runtime,testing}/**/*.wf.test.{ts,tsx}'],
          exclude: shared,
          testTimeout: 120_000,
          hookTimeout: 180_000,
          pool: 'forks',
        },
      },
      {
        test: {
          name: 'integration',
          setupFiles: quietTemporal,
          include: [
            '{apps,packages,journeys,temporal,runtime,testing}/**/*.int.test.{ts,tsx}',
            '{apps,packages,journeys,temporal,runtime,testing}/**/*.browser.test.{ts,tsx}',
          ],
          exclude: shared,
          globalSetup: ['test/integration-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          pool: 'forks',
        },
      },
    ],
  },
});
