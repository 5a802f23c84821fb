import js from '@eslint/js';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

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
    // the journey test kit (@waymark/journey/testing) runs in Node beside the tests, never in a workflow
    ignores: ['**/*.test.ts', '**/*.test.tsx', 'packages/journey/testing/**'],
    rules: workflowSafeImports,
  },
);
