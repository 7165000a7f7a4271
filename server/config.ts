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
    dbPoolMax: Number(env.DB_POOL_MAX || 10),
    migrationsDir: env.MIGRATIONS_DIR || path.join(process.cwd(), 'db', 'migrations'),
    redisUrl: env.REDIS_URL || undefined,
    upstashUrl: env.UPSTASH_REDIS_REST_URL || undefined,
    upstashToken: env.UPSTASH_REDIS_REST_TOKEN || undefined,
    /** Absolute base for URLs handed to requesters; falls back to the request origin. */
    publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
    /** Largest accepted request body. */
    maxBodyBytes: Number(env.MAX_BODY_BYTES || 256 * 1024),
    /** Trust X-Forwarded-For (set when running behind a proxy you control). */
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    logLevel: env.LOG_LEVEL || 'info',
    /** DNS server(s) for domain verification, `host[:port]` (comma-separated); unset: the system resolver. */
    dnsResolver: env.DNS_RESOLVER || undefined,
    /** Outgoing mail (contact verification, proposal outcomes), e.g. smtp://user:pass@host:587; unset: messages go to the log. */
    smtpUrl: env.SMTP_URL || undefined,
    /** NODE_ENV=production: development conveniences (mail links in the log) are off unless asked for. */
    production: env.NODE_ENV === 'production',
    /** MAIL_LOG_LINKS=1: without SMTP_URL, write mail to the log with its live links even in production. */
    mailLogLinks: env.MAIL_LOG_LINKS === '1',
    /** Sender address of outgoing mail. */
    mailFrom: env.MAIL_FROM || 'Scheduling <no-reply@scheduler.invalid>',
    /** Signs dashboard sessions (Auth.js). Unset: a random key kept in dataDir (single instance). */
    authSecret: env.NEXTAUTH_SECRET || env.AUTH_SECRET || undefined,
    /** Auth.js base URL; unset, it follows PUBLIC_BASE_URL or the request origin (server/auth/nextAuth.ts). */
    authUrl: env.NEXTAUTH_URL || undefined,
    /** Local state of this installation (embedded database, generated secrets). */
    dataDir: env.DATA_DIR || path.join(process.cwd(), '.data'),
    /**
     * Webhook URLs may point at private, loopback and link-local addresses: WEBHOOKS_ALLOW_PRIVATE=1
     * allows, =0 refuses; unset, refused in production and allowed otherwise (docs/webhooks.md).
     */
    webhooksAllowPrivate: env.WEBHOOKS_ALLOW_PRIVATE === '1' || (env.WEBHOOKS_ALLOW_PRIVATE !== '0' && env.NODE_ENV !== 'production'),
    /** First retry delay of a failed webhook delivery (doubles per attempt, with jitter). */
    webhookRetryBaseMs: Number(env.WEBHOOK_RETRY_BASE_MS || 5_000),
    /** How often the webhook worker looks for due deliveries. */
    webhookPollMs: Number(env.WEBHOOK_POLL_MS || 200),
  };
}
export type Config = ReturnType<typeof getConfig>;

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
