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
    /** Production mode (NODE_ENV=production): mail that cannot be sent is not written to the log where it would leak sign-in links. */
    production: env.NODE_ENV === 'production',
    /** Sender address of outgoing mail. */
    mailFrom: env.MAIL_FROM || 'Scheduling <no-reply@scheduler.invalid>',
    /** Signs dashboard sessions (Auth.js). Unset: a random key kept in dataDir (single instance). */
    authSecret: env.NEXTAUTH_SECRET || env.AUTH_SECRET || undefined,
    /** Auth.js base URL; unset, it follows PUBLIC_BASE_URL or the request origin (server/auth/nextAuth.ts). */
    authUrl: env.NEXTAUTH_URL || undefined,
    /** Local state of this installation (embedded database, generated secrets). */
    dataDir: env.DATA_DIR || path.join(process.cwd(), '.data'),
  };
}
export type Config = ReturnType<typeof getConfig>;
