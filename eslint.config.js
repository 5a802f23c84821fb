import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const nodeBuiltins = builtinModules.flatMap((name) => [name, `node:${name}`]);

/**
 * House rule 2: journey and workflow code runs in Temporal's deterministic sandbox, so it may
 * not import Node built-ins or anything that does I/O. Types are fine (`import type`).
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
 * The layer map (docs/contributing.md). Packages: apps → temporal → core → (email, journey), and
 * journeys → journey; never upward. Inside packages/core, each folder is one concept and may
 * import only the folders listed before it, so folder-level cycles (type-only ones included)
 * cannot form. A new core folder goes into this list at the lowest place its imports allow.
 */
const coreLayers = [
  'config',
  'errors',
  'logging',
  'concurrency',
  'db',
  'cache',
  'audit',
  'auth',
  'contacts',
  'lists',
  'dlq',
  'outbox',
  'preferences',
  'emails',
  'jobs',
  'journeys',
  'events',
  'imports',
  'replays',
  'tracking',
  'metrics',
  'alerts',
  'webhooks',
];
// packages/journey-testing is the journey test kit (@waymark/journey-testing): it drives temporal's
// real journey runner for tests, so it sits above temporal/ like a test does, and only tests import it.
const belowTemporal = ['packages/core', 'packages/email', 'packages/sources', 'packages/journey/src', 'journeys'];
const packageZones = [
  { target: belowTemporal, from: ['apps', 'temporal'], message: 'packages/ and journeys/ sit below temporal/ and apps/.' },
  { target: 'temporal', from: 'apps', message: 'temporal/ sits below apps/.' },
  { target: ['packages/email', 'packages/journey/src'], from: 'packages/core', message: 'packages/email and packages/journey sit below packages/core.' },
  { target: 'packages/core', from: 'journeys', message: 'core gets the journeys through a JourneyRegistry passed in by the app.' },
  {
    target: ['apps', 'temporal', ...belowTemporal],
    from: 'packages/journey-testing',
    message: 'the journey test kit (packages/journey-testing) is for tests only.',
  },
  { target: 'packages/journey-testing', from: 'apps', message: 'the journey test kit sits below apps/.' },
];
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
    // Imports point one way (docs/contributing.md): a cycle means two modules that cannot be
    // understood, tested or moved apart. no-cycle sees runtime imports between files; the zones
    // also see type-only imports and hold whole folders and packages to the layer map.
    files: ['**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx', 'apps/studio/**'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones: [...packageZones, ...coreZones] }],
    },
  },
);
