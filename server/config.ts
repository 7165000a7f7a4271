import path from 'node:path';

/**
 * The one place that reads process.env for the service. Read lazily (each
 * call) so tests and scripts can set variables before first use.
 */
export function getConfig() {
  const env = process.env;
  return {
    /** PostgreSQL via postgres.js when set; otherwise the embedded PGlite. */
    databaseUrl: env.DATABASE_URL || undefined,
    /** `pglite-memory` keeps the embedded database in memory (tests). */
    dbDriver: env.DB_DRIVER || undefined,
    pgliteDir: env.PGLITE_DIR || path.join(process.cwd(), '.data', 'pglite'),
    /** A migrated in-memory database to start from (tests; docs/testing.md "Embedded database template"). */
    pgliteTemplate: env.PGLITE_TEMPLATE || undefined,
    dbPoolMax: Number(env.DB_POOL_MAX || 10),
    /**
     * Named prepared statements (default on). DATABASE_PREPARE=0 (or PGBOUNCER=1, the same) sends
     * unnamed statements, for a pooler in transaction mode that cannot keep a connection's
     * statements (PgBouncer before 1.21): docs/operations.md "High availability".
     */
    databasePrepare: flagOr(env.DATABASE_PREPARE, !flagOr(env.PGBOUNCER, false)),
    /**
     * What needs a session of its own (the migrations' advisory lock, the LISTEN connection)
     * connects here: the primary directly when DATABASE_URL is a transaction pooler. Unset: DATABASE_URL.
     */
    databaseDirectUrl: env.DATABASE_DIRECT_URL || undefined,
    migrationsDir: env.MIGRATIONS_DIR || path.join(process.cwd(), 'db', 'migrations'),
    redisUrl: env.REDIS_URL || undefined,
    upstashUrl: env.UPSTASH_REDIS_REST_URL || undefined,
    upstashToken: env.UPSTASH_REDIS_REST_TOKEN || undefined,
    /** Absolute base for URLs handed to requesters; falls back to the request origin. */
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    /** Largest accepted request body. */
    maxBodyBytes: Number(env.MAX_BODY_BYTES || 256 * 1024),
    /**
     * Dashboard password attempts per client address in 15 minutes (docs/operations.md "Rate
     * limits"; default 30). Raise it only where many people share one address: the end-to-end
     * suite's browsers all sign in from 127.0.0.1.
     */
    signInIpLimit: Math.max(1, Math.floor(Number(env.SIGN_IN_IP_LIMIT || 30)) || 30),
    /** Trust X-Forwarded-For (set when running behind a proxy you control). */
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    /** Lowest level written (trace, debug, info, warn, error, fatal; `silent` = warn): server/log.ts, docs/operations.md "Logs". */
    logLevel: logLevelSetting(),
    /** Bearer token GET /metrics requires (docs/operations.md "Metrics"); unset: /metrics answers 404 on the service port. */
    metricsToken: env.METRICS_TOKEN || undefined,
    /** Serve /metrics without a token on this separate port (bind it where only the scraper reaches); unset: no metrics listener. */
    metricsPort: env.METRICS_PORT ? Number(env.METRICS_PORT) : undefined,
    /** DNS server(s) for domain verification, `host[:port]` (comma-separated); unset: the system resolver. */
    dnsResolver: env.DNS_RESOLVER || undefined,
    /** Outgoing mail (contact verification, proposal outcomes), e.g. smtp://user:pass@host:587; unset: messages go to the log. */
    smtpUrl: env.SMTP_URL || undefined,
    /** NODE_ENV=development (`npm run dev`): pages' Content-Security-Policy allows 'unsafe-eval' for React's dev tooling (docs/reliability.md "Headers"). */
    development: env.NODE_ENV === 'development',
    /** NODE_ENV=production: development conveniences (mail links in the log) are off unless asked for. */
    production: env.NODE_ENV === 'production',
    /** MAIL_LOG_LINKS=1: without SMTP_URL, write mail to the log with its live links even in production. */
    mailLogLinks: env.MAIL_LOG_LINKS === '1',
    /** Sender address of outgoing mail. */
    mailFrom: env.MAIL_FROM || 'Agent Scheduler <no-reply@scheduler.invalid>',
    /** Signs dashboard sessions (Auth.js). Unset: a random key kept in dataDir (single instance). */
    authSecret: env.NEXTAUTH_SECRET || env.AUTH_SECRET || undefined,
    /** Auth.js base URL; unset, it follows PUBLIC_BASE_URL or the request origin (server/auth/nextAuth.ts). */
    authUrl: env.NEXTAUTH_URL || undefined,
    /** The agent key `npm run mcp` (MCP over stdio) acts with: docs/agents.md. */
    mcpApiKey: env.SCHEDULER_API_KEY || undefined,
    /** Local state of this installation (embedded database, generated secrets). */
    dataDir: env.DATA_DIR || path.join(process.cwd(), '.data'),
    /**
     * Keys that encrypt calendar credentials at rest (AES-256-GCM), `id:base64key` comma-separated
     * (32-byte keys); the first encrypts, every one listed decrypts (rotation; docs/calendars.md).
     */
    calendarSecretKeys: env.CALENDAR_SECRET_KEYS || undefined,
    /** Background sync of every connected calendar, this often (seconds; 0 turns the loop off). */
    calendarSyncIntervalSeconds: Number(env.CALENDAR_SYNC_INTERVAL_SECONDS ?? 60),
    /** A mirror older than this is synced before a decision reads it (seconds). */
    calendarFreshSeconds: Number(env.CALENDAR_FRESH_SECONDS ?? 120),
    /** A mirror older than this, with the provider unreachable, fails closed (seconds). */
    calendarHardStaleSeconds: Number(env.CALENDAR_HARD_STALE_SECONDS ?? 900),
    /** Longest wait for a provider during a sync on the request path (milliseconds). */
    calendarSyncTimeoutMs: Number(env.CALENDAR_SYNC_TIMEOUT_MS ?? 5000),
    /** How far ahead (days) recurring provider events are expanded into the mirror. */
    calendarHorizonDays: Number(env.CALENDAR_HORIZON_DAYS ?? 180),
    /**
     * CalDAV server URLs may be plain http: CALDAV_ALLOW_HTTP=1 allows, =0 refuses; unset, refused in
     * production (passwords travel with every request) and allowed otherwise (docs/calendars.md).
     */
    caldavAllowHttp: env.CALDAV_ALLOW_HTTP === '1' || (env.CALDAV_ALLOW_HTTP !== '0' && env.NODE_ENV !== 'production'),
    /** Google Calendar OAuth client (docs/calendars.md); the URLs are overridable for tests' loopback fakes. */
    googleClientId: env.GOOGLE_CLIENT_ID || undefined,
    googleClientSecret: env.GOOGLE_CLIENT_SECRET || undefined,
    googleAuthUrl: env.GOOGLE_AUTH_URL || 'https://accounts.google.com/o/oauth2/v2/auth',
    googleTokenUrl: env.GOOGLE_TOKEN_URL || 'https://oauth2.googleapis.com/token',
    googleCalendarApi: env.GOOGLE_CALENDAR_API || 'https://www.googleapis.com/calendar/v3',
    /** Microsoft 365 OAuth client (Microsoft identity platform) and Graph; URLs overridable for tests' loopback fakes. */
    microsoftClientId: env.MICROSOFT_CLIENT_ID || undefined,
    microsoftClientSecret: env.MICROSOFT_CLIENT_SECRET || undefined,
    microsoftAuthUrl: env.MICROSOFT_AUTH_URL || 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    microsoftTokenUrl: env.MICROSOFT_TOKEN_URL || 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    microsoftGraphApi: env.MICROSOFT_GRAPH_API || 'https://graph.microsoft.com/v1.0',
    /**
     * Requests the server makes on a user's behalf (webhook deliveries, CalDAV, the Google and
     * Microsoft endpoints) may reach private, loopback, link-local and reserved addresses:
     * OUTBOUND_ALLOW_PRIVATE=1 allows, =0 refuses; unset, allowed in development (`npm run dev`,
     * NODE_ENV=development) and refused otherwise, production included (docs/reliability.md
     * "Outbound requests"). WEBHOOKS_ALLOW_PRIVATE is the older name of the same setting.
     */
    outboundAllowPrivate: flagOr(env.OUTBOUND_ALLOW_PRIVATE ?? env.WEBHOOKS_ALLOW_PRIVATE, env.NODE_ENV === 'development'),
    /** First retry delay of a failed webhook delivery (doubles per attempt, with jitter). */
    webhookRetryBaseMs: Number(env.WEBHOOK_RETRY_BASE_MS || 5_000),
    /** The webhook worker's fallback poll: it is woken on commit of new rows (docs/webhooks.md "Delivery"). */
    webhookPollMs: Number(env.WEBHOOK_POLL_MS || 30_000),
    /** The reminder worker's fallback poll: it sleeps until the next due reminder and is woken on commit of new ones (docs/reliability.md "Reminders"). */
    reminderPollMs: Number(env.REMINDER_POLL_MS || 60_000),
    /** Webhook deliveries in flight at once per process (each endpoint has at most one). */
    webhookMaxInFlight: Number(env.WEBHOOK_MAX_IN_FLIGHT || 64),
    /**
     * OpenTelemetry traces (docs/operations.md "Traces"): the collector's OTLP/HTTP base URL, e.g.
     * http://127.0.0.1:4318 (spans go to `<url>/v1/traces`, JSON). Unset: tracing is off and costs nothing.
     */
    otelEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
    /** `service.name` of the spans. */
    otelServiceName: env.OTEL_SERVICE_NAME || 'agent-scheduler',
    /**
     * Head sampling of traces (docs/operations.md "Traces", the OpenTelemetry names):
     * OTEL_TRACES_SAMPLER `parentbased_always_on` (default), `parentbased_traceidratio`,
     * `traceidratio`, `always_on`, `always_off`, `parentbased_always_off`; OTEL_TRACES_SAMPLER_ARG
     * the ratio of the two ratio samplers (0 to 1, default 1).
     */
    otelSampler: env.OTEL_TRACES_SAMPLER || 'parentbased_always_on',
    otelSamplerArg: env.OTEL_TRACES_SAMPLER_ARG || undefined,
  };
}
export type Config = ReturnType<typeof getConfig>;

/**
 * LOG_LEVEL alone: the logger reads it on every line (tests change it at run time), without
 * building the whole configuration each time.
 */
export function logLevelSetting(): string {
  return process.env.LOG_LEVEL || 'info';
}

/** `1`/`true` on, `0`/`false` off, unset (or anything else) the default. */
function flagOr(value: string | undefined, fallback: boolean): boolean {
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  return fallback;
}

/**
 * Auth.js 4 reads its base URL from the environment itself. Once per
 * process: with NEXTAUTH_URL set, it is used as is; else PUBLIC_BASE_URL
 * becomes it; else Auth.js is told to trust the forwarded host (our server,
 * scripts/serve.mjs, only forwards a client's Host/X-Forwarded-* when
 * TRUST_PROXY is set), so redirects follow the origin the request reached.
 * The only writes to process.env in the service, and they happen here.
 */
let authEnvironmentReady = false;
export function prepareAuthEnvironment(): void {
  if (authEnvironmentReady) return;
  authEnvironmentReady = true;
  const env = process.env;
  if (env.NEXTAUTH_URL) return;
  if (env.PUBLIC_BASE_URL) env.NEXTAUTH_URL = `${env.PUBLIC_BASE_URL.replace(/\/+$/, '')}/api/auth`;
  else env.AUTH_TRUST_HOST = '1';
}
