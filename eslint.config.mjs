// Lint: typescript-eslint's type-checked rules, and the import direction of docs/architecture.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createRequire } from 'node:module';

const architecture = createRequire(import.meta.url)('./eslint-rules/architecture.js');

const domainMayNot = ['**/http/**', '**/routes/**', '**/temporal/**', '@temporalio/*', '**/activities/**'];

/** Imports a folder may not make: each entry is [glob of importers, patterns they may not import, why]. */
const layers = [
  [
    // The domain's record types (JobView, ServiceRow, ...) are imported as types: see the src/db/** block below.
    'src/db/**',
    ['**/http/**', '**/routes/**', '**/temporal/**', '@temporalio/*', '**/activities/**'],
    'repositories depend on nothing above them',
  ],
  [
    'src/domain/**',
    domainMayNot,
    'application services reach Temporal through the ports in src/domain/ports, which src/temporal implements',
  ],
  [
    'src/domain/ports/**',
    [...domainMayNot, '**/db/**'],
    "a port names what the domain needs in the domain's own types; src/db implements it, so it cannot import src/db",
  ],
  ['src/routes/**', ['**/db/**', '**/temporal/**', '@temporalio/*', '**/activities/**'], 'routes call application services only'],
  ['src/http/**', ['**/db/**', '**/temporal/**', '**/routes/**', '**/activities/**'], 'HTTP plumbing knows no storage or workflow'],
  ['src/failure-classes.ts', ['@temporalio/*'], 'the repositories and the domain load it, and they stay SDK-free'],
  [
    'src/webhooks/**',
    ['**/domain/**', '**/db/**', '**/http/**', '**/routes/**', '**/temporal/**', '@temporalio/*', '**/activities/**'],
    'the sender, its signature and its target policy are infrastructure the domain and activities call',
  ],
  [
    'src/secrets/**',
    ['**/domain/**', '**/db/**', '**/http/**', '**/routes/**', '**/temporal/**', '@temporalio/*', '**/activities/**'],
    'the secret box (seal/open under SECRET_KEYS) is infrastructure the domain, the repositories and the migrations call',
  ],
  [
    'src/auth/**',
    ['**/domain/**', '**/db/**', '**/http/**', '**/routes/**', '**/temporal/**', '**/activities/**'],
    'tokens know no rules or storage',
  ],
  [
    'src/observability/**',
    ['**/http/**', '**/routes/**', '**/activities/**'],
    'metrics and tracing are called by every layer and call none but the ports they wrap',
  ],
  [
    'src/openapi/**',
    ['**/db/**', '**/http/**', '**/routes/**', '**/temporal/**', '@temporalio/*', '**/activities/**'],
    'the document is data: schemas and the operation table, with the bounds and event names the domain defines',
  ],
  [
    'src/temporal/**',
    ['**/http/**', '**/routes/**', '**/domain/*', '!**/domain/ports', '**/activities/**'],
    'the Temporal adapters implement the ports in src/domain/ports over the SDK; they call no application service',
  ],
  [
    // The leaf modules at the top of src/: shared by every layer, so they import none of them.
    'src/{canonical-json,console-settings,env-values,errors,failure-classes,ids,instants,logger,paging,paths,periodic,shapes,shutdown}.ts',
    ['**/domain/**', '**/db/**', '**/http/**', '**/routes/**', '**/temporal/**', '**/activities/**', '**/dev/**', '@temporalio/*'],
    'top-level modules of src/ are leaves every layer imports',
  ],
  [
    // Every layer reads its settings from here; the parsers of their own variables it calls are infrastructure.
    'src/config/**',
    [
      ...['**/domain/**', '**/db/**', '**/http/**', '**/routes/**', '**/auth/**', '**/dev/**', '**/activities/**'],
      ...['**/observability/**', '**/openapi/**', '**/composition/**', '@temporalio/*'],
      ...['**/temporal/*', '!**/temporal/connection-settings'],
    ],
    'the configuration is a leaf every layer imports: the types of the settings live in it, not above it',
  ],
  [
    'src/dev/**',
    ['**/domain/**', '**/routes/**', '**/activities/**'],
    'the dev runner and its servers start the service through its composition, as a process does',
  ],
  [
    'migrations/**',
    ['../src/*', '!../src/secrets', '../src/*/**', '!../src/secrets/**', '**/activities/**'],
    'a migration is frozen when it ships: it may use the secret box (its format is versioned), never code that changes',
  ],
  [
    'console/**',
    ['**/src/db/**', '**/src/domain/**', '**/src/http/**', '**/src/routes/**', '**/src/temporal/**', '@temporalio/*', '**/activities/**'],
    'the console reaches the service through client/ only (it may share src/auth/permissions.ts and src/console-settings.ts)',
  ],
  [
    'activities/**',
    ['**/db/**', '**/routes/**', '**/http/**'],
    'activities call application functions (src/domain/jobs/run/job-runs.ts), not repositories',
  ],
];

/** src/composition/ assembles every layer into the API and the worker; only the composition roots load it. */
const composition = {
  group: ['**/composition', '**/src/composition'],
  message:
    'Layering (docs/architecture.md): src/composition/ is loaded only by the composition roots (the API and worker processes, the dev runner, the test harness, the bench).',
};

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      '**/dist/**',
      'node_modules/**',
      '.tools/**',
      '.data/**',
      'client/schema.d.ts',
      'coverage/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/require-await': 'off',
      // A server's handler may name the object the server is being built for (assigned once, read later).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // The SDK's connections throw from a retry timer when closed mid-retry (src/temporal/close-safe-retries.ts).
      'no-restricted-properties': [
        'error',
        ...['connect', 'lazy'].map((property) => ({
          object: 'Connection',
          property,
          message: 'open Temporal connections with TemporalConnection.open (src/temporal/connection.ts): its close ends pending retries',
        })),
      ],
    },
  },
  {
    // Tests and benchmarks read response bodies as `any` on purpose: the contract check (test/helpers/contract.ts)
    // validates every response against the document at run time, and assertions state the shape they expect.
    // Their stand-in servers take async request listeners, which node:http ignores the promise of by design.
    files: ['test/**', 'bench/**', 'handler-kit/test/**'],
    rules: {
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    files: ['src/db/**'],
    rules: {
      // knex builders are thenables, so a `where((q) => q.where(...))` callback looks like a misused promise.
      '@typescript-eslint/no-misused-promises': 'off',
    },
  },
  {
    // Koa types `next()` as Promise<any>; middleware returns it as Koa expects.
    files: ['src/http/**'],
    rules: { '@typescript-eslint/no-unsafe-return': 'off' },
  },
  {
    plugins: { architecture },
    rules: { 'architecture/no-import-cycle': 'error' },
  },
  {
    // A concept of src/domain is reached through its index.ts; tests may reach into a concept to test its parts.
    files: ['src/**', 'activities/**', 'workflows/**', 'bench/**'],
    rules: { 'architecture/concept-faces': 'error' },
  },
  {
    files: ['test/**', 'handler-kit/test/**'],
    rules: { 'architecture/no-sleep-then-assert': 'error' },
  },
  ...layers.map(([files, patterns, why]) => ({
    files: [files],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...(patterns.length ? [{ group: patterns, message: `Layering (docs/architecture.md): ${why}.` }] : []),
            // The dev runner is a composition root of its own (`npm start`).
            ...(files === 'src/dev/**' ? [] : [composition]),
          ],
        },
      ],
    },
  })),
  {
    // The repositories return the domain's records (src/domain/*/*.view.ts): they import those as types, never code.
    files: ['src/db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/domain/**', '**/domain'],
              allowTypeImports: true,
              message:
                "Layering (docs/architecture.md): repositories import the domain's record types only (`import type`), no domain code.",
            },
          ],
        },
      ],
    },
  },
  {
    // Workflow code is replayed: it may import only the workflow SDK, its own contract modules and activity types.
    files: ['workflows/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../src/**'], message: 'workflows/ import only @temporalio/workflow, their own contract modules and activity types' },
          ],
        },
      ],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../activities', '../activities/*'], allowTypeImports: true, message: 'workflows/ import activities as types only' },
          ],
        },
      ],
    },
  },
);
