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
  };
}
export type Config = ReturnType<typeof getConfig>;
