import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

/**
 * Deterministic workflows (docs/contributing.md): journey and workflow code runs in Temporal's
 * deterministic sandbox, so it may not import Node built-ins or anything that does I/O. Types are
 * fine (`import type`).
 */
const workflowSafeImports = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: [
        ...nodeBuiltins,
        'pg',
        'ioredis',
        'kysely',
        'fastify',
        'pino',
        'react-dom',
        '@temporalio/client',
        '@temporalio/worker',
        '@temporalio/activity',
      ].map((name) => ({
        name,
        message: 'Workflow code must be deterministic: no Node built-ins or I/O modules (use an activity).',
        allowTypeImports: true,
      })),
      patterns: [
        {
          group: ['@aws-sdk/*', '@waymark/core/*', '@waymark/email/*', '**/activities/*'],
          message: 'Workflow code reaches these only through activities (import type is fine).',
          allowTypeImports: true,
        },
      ],
    },
  ],
};

/**
 * Email templates (journeys/templates) render in activities, never in a workflow (journeys name
 * them by key): beside the rules above, they may use the message catalogs, pure functions that do
 * no I/O (docs/email.md, "Languages").
 */
const [workflowImportLevel, workflowImportOptions] = workflowSafeImports['@typescript-eslint/no-restricted-imports'];
const templateSafeImports = {
  '@typescript-eslint/no-restricted-imports': [
    workflowImportLevel,
    {
      ...workflowImportOptions,
      patterns: workflowImportOptions.patterns.map((pattern) => ({
        ...pattern,
        group: [...pattern.group, '!@waymark/email/email-template', '!@waymark/email/message-catalog'],
      })),
    },
  ],
};

/**
 * The layer map (docs/contributing.md, "The layer map"). Workspaces in rows, lowest first: each
 * may import only the rows before its own, never a neighbour on its row or a row above. Inside packages/core, each folder
 * is one concept and may import only the folders listed before it in coreLayers, so folder-level
 * cycles (type-only ones included) cannot form. A new core folder goes into coreLayers at the
 * lowest place its imports allow (packages/core/layer-map.test.ts fails on a folder left out, and
 * on docs/contributing.md listing another order).
 */
const coreLayers = [
  'config',
  'errors',
  'logging',
  'concurrency',
  'tokens',
  'db',
  'studio',
  'cache',
  'send-rate',
  'audit',
  'auth',
  'users',
  'organizations',
  'contacts',
  'lists',
  'segments',
  'dlq',
  'outbox',
  'preferences',
  'delivery',
  'deliverability',
  'emails',
  'doctor',
  'templates',
  'jobs',
  'outcomes',
  'broadcasts',
  'journeys',
  'events',
  'imports',
  'replays',
  'tracking',
  'metrics',
  'alerts',
  'webhooks',
  'contact-removal',
];
const workspaceLayers = [
  ['packages/email', 'packages/journey/src', 'packages/sources', 'migrations'],
  // core gets this deployment's journeys as a JourneyRegistry passed in by the app, and journeys/ is
  // workflow code that reaches core only through activities: neither imports the other
  ['packages/core', 'journeys'],
  ['temporal'],
  // runtime/: the composition root of the api, the worker and the CLI (this deployment's journeys joined
  // to core, their versions, every app's Temporal client and starters), above the adapters it assembles
  ['runtime'],
  // testing/: the journey test kit (@waymark/journey-testing, testing/journey-kit) drives temporal's
  // real journey runner for tests, so it sits above temporal/ like a test does; only tests import it (kitZone below)
  ['testing'],
  ['apps/api', 'apps/worker', 'apps/cli', 'apps/studio'],
];
const workspaceZones = workspaceLayers.flatMap((row, index) =>
  row.map((workspace) => ({
    target: workspace,
    from: [...row.filter((other) => other !== workspace), ...workspaceLayers.slice(index + 1).flat()],
    message: `${workspace} may import only the workspaces below its row in workspaceLayers (eslint.config.js).`,
  })),
);
// The studio talks to the api over HTTP only: its own src/ and the typed client generated there
// (src/api/schema.ts), never core or another workspace; the one exception is the duration grammar
// (@waymark/journey/duration, no imports of its own), so the editor checks a window as the api does.
const studioZone = {
  target: 'apps/studio/src',
  from: '.',
  except: ['./apps/studio/src', './node_modules', './packages/journey/src/duration.ts'],
  message:
    'apps/studio/src may import only its own code, the generated client (src/api/schema.ts) and the duration grammar (packages/journey/src/duration.ts); the api is reached over HTTP.',
};
// @waymark/client is published on its own and runs wherever fetch does: its own src/ only, no npm
// package and no other workspace (its tests, ignored by this rule, may use the repository's helpers)
const clientZone = {
  target: 'packages/client/src',
  from: '.',
  except: ['./packages/client/src'],
  message: 'packages/client/src may import only its own files: it is published alone and has no dependencies (docs/client.md).',
};
// Production code never runs the test kit: apps/ sit above its row, but only their tests may use it.
const kitZone = {
  target: 'apps',
  from: 'testing',
  message: 'the journey test kit (testing/journey-kit) is for tests only.',
};
// The apps take their Temporal connection, client and starters from runtime/ (client.ts,
// worker-connection.ts), so a run is started the same way in every process; their tests may build their own.
const temporalConnectionImports = {
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: [
        { name: '@temporalio/client', importNames: ['Client', 'Connection', 'WorkflowClient', 'ScheduleClient'] },
        { name: '@temporalio/worker', importNames: ['NativeConnection'] },
      ].map((path) => ({
        ...path,
        message: 'An app takes its Temporal connection and client from runtime/ (client.ts, worker-connection.ts; docs/contributing.md, "The layer map").',
        allowTypeImports: true,
      })),
    },
  ],
};
const coreZones = coreLayers.slice(0, -1).map((folder, index) => ({
  target: `packages/core/src/${folder}`,
  from: coreLayers.slice(index + 1).map((higher) => `packages/core/src/${higher}`),
  message: `core/${folder} may import only the core folders before it in coreLayers (eslint.config.js).`,
}));

export default tseslint.config(
  { ignores: ['**/node_modules/**', '.data/**', '**/dist/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': 'off',
    },
  },
  {
    files: ['journeys/**/*.{ts,tsx}', 'packages/journey/**/*.ts', 'temporal/workflows/**/*.ts'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: workflowSafeImports,
  },
  {
    files: ['journeys/templates/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: templateSafeImports,
  },
  {
    files: ['apps/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: temporalConnectionImports,
  },
  {
    // Imports point one way (docs/contributing.md): a cycle means two modules that cannot be
    // understood, tested or moved apart. no-cycle sees runtime imports between files; the zones
    // also see type-only imports and hold whole folders and workspaces to the layer map. A loop of
    // type-only imports between files is caught by dependency-cruiser (.dependency-cruiser.js),
    // the second half of `npm run lint`, since no-cycle skips `import type`.
    files: ['**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: [...workspaceZones, studioZone, clientZone, kitZone, ...coreZones] }],
    },
  },
);
