// ESLint 9 flat config. eslint-config-next 16 exports flat config arrays:
// `core-web-vitals` (Next, React, hooks, import, a11y rules) and `typescript`
// (typescript-eslint's recommended set).
import nextCoreWebVitals from 'eslint-config-next/core-web-vitals';
import nextTypescript from 'eslint-config-next/typescript';
import local from './eslint-rules/no-raw-datetime-formatting.mjs';

const config = [
  {
    ignores: [
      '.next/**',
      'node_modules/**',
      '.data/**',
      '.xdg/**',
      '.test-results/**',
      'test-results/**',
      'playwright-report/**',
      'db/migrations/**',
      'next-env.d.ts',
      'clients/typescript/dist/**',
    ],
  },
  ...nextCoreWebVitals,
  ...nextTypescript,
  {
    rules: {
      // Warn, not fail: type-erased helpers (e.g. AnyOperation in server/http/operation.ts) need `any`.
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': ['warn', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  {
    // Requests made on a user's behalf go through the one outbound guard (docs/reliability.md
    // "Outbound requests"); the global fetch would skip it. (Node's http/https: .dependency-cruiser.cjs.)
    files: ['server/domain/**/*.ts'],
    ignores: ['server/domain/outbound/**'],
    rules: {
      'no-restricted-globals': ['error', { name: 'fetch', message: "Use outboundFetch() from server/domain/outbound/guard.ts (docs/reliability.md 'Outbound requests')." }],
    },
  },
  {
    // One time-format module (docs/dashboard.md "Dates and times"): raw date formatting stays out of the pages.
    files: ['components/**/*.{ts,tsx}', 'app/**/*.{ts,tsx}'],
    ignores: ['components/ui/time-format.ts'],
    plugins: { local },
    rules: { 'local/no-raw-datetime-formatting': 'error' },
  },
  {
    // A form a script handles is the kit's <Form> (docs/dashboard.md "Forms"): its controls wait for
    // hydration, so nothing typed early is lost and nothing is submitted natively.
    files: ['components/**/*.tsx', 'app/**/*.tsx'],
    ignores: ['components/ui/hydrated-form.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'JSXOpeningElement[name.name="form"]:not(:has(JSXAttribute[name.name="method"]))',
          message: "Use <Form> from components/ui (docs/dashboard.md 'Forms'); a plain <form method=\"get\"> that works without a script may stay.",
        },
      ],
    },
  },
  {
    // Node scripts (plain ESM): CommonJS-style globals are not in play, console is their output.
    files: ['scripts/**/*.mjs', '*.config.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
];

export default config;
