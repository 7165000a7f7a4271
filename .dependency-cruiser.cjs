/**
 * Layer rules (docs/architecture.md "Layers"), checked in CI by
 * tests/unit/architecture/layers.test.ts: `app -> server/http | server/trpc -> server/domain -> db`,
 * no import cycles.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Import cycles make layers meaningless.', from: {}, to: { circular: true } },
    { name: 'db-not-to-server', severity: 'error', comment: 'db/ is the bottom layer: it imports nothing of server/.', from: { path: '^db/' }, to: { path: '^server/' } },
    {
      name: 'domain-not-to-transport',
      severity: 'error',
      comment: 'The domain knows no transport: no Next.js, tRPC, MCP, server/http, server/trpc, server/mcp or server/auth.',
      from: { path: '^server/domain/' },
      to: { path: '^(server/http|server/trpc|server/mcp|server/auth|app)/|node_modules/(next|@trpc|next-auth|@modelcontextprotocol)/' },
    },
    {
      name: 'transports-apart',
      severity: 'error',
      comment: 'The REST and tRPC transports share the domain, not each other.',
      from: { path: '^server/trpc/' },
      to: { path: '^server/http/' },
    },
    {
      name: 'mcp-on-top-of-rest',
      severity: 'error',
      comment: 'MCP tools run REST operations through the REST wrapper (server/mcp/execute.ts); nothing below or beside imports MCP.',
      from: { path: '^(server/http|server/trpc|server/schemas|server/domain|db)/' },
      to: { path: '^server/mcp/' },
    },
    {
      name: 'mcp-not-to-trpc',
      severity: 'error',
      from: { path: '^server/mcp/' },
      to: { path: '^server/trpc/' },
    },
    {
      name: 'rest-not-to-trpc',
      severity: 'error',
      from: { path: '^server/http/' },
      to: { path: '^server/trpc/' },
    },
    {
      name: 'schemas-are-contract-only',
      severity: 'error',
      comment: 'server/schemas (zod schemas shared by REST, tRPC, forms and OpenAPI) depends on no transport.',
      from: { path: '^server/schemas/' },
      to: { path: '^(server/http|server/trpc|server/auth|app)/' },
    },
    {
      name: 'server-not-to-app',
      severity: 'error',
      comment: 'Routes and pages sit on top; nothing below imports them.',
      from: { path: '^(server|db)/' },
      to: { path: '^app/' },
    },
    {
      name: 'components-not-to-app',
      severity: 'error',
      comment: 'Components are used by pages; a component never imports a route or page module.',
      from: { path: '^components/' },
      to: { path: '^app/' },
    },
    {
      name: 'webhooks-below-notifications',
      severity: 'error',
      comment: 'One direction: the notification queue writes into the webhook outbox, so webhooks/ never imports the notification service (the worker is handed its notice; server/startup.ts).',
      from: { path: '^server/domain/webhooks/' },
      to: { path: '^server/domain/notificationService\\.ts$' },
    },
    {
      name: 'claims-through-its-index',
      severity: 'error',
      comment: 'claims/ has one public entry (server/domain/claims/index.ts; docs/architecture.md "Claims"): code outside the folder imports from it, never from a file inside.',
      from: { pathNot: '^server/domain/claims/' },
      to: { path: '^server/domain/claims/', pathNot: '^server/domain/claims/index\\.ts$' },
    },
    {
      name: 'outbound-through-the-guard',
      severity: 'error',
      comment: 'Requests made on a user\'s behalf go through the one outbound guard (server/domain/outbound/guard.ts; docs/reliability.md "Outbound requests"): nothing else in the domain opens HTTP connections.',
      from: { path: '^server/domain/', pathNot: '^server/domain/outbound/' },
      to: { path: '^(node:)?(http|https|undici)$|node_modules/undici/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|\\.next|tests|e2e|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
