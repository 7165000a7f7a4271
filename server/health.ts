import fs from 'node:fs/promises';
import path from 'node:path';
import { latestAppliedMigration } from '@/db/hot/observability';
import { getDbHandle } from '@/server/db';
import { getConfig } from '@/server/config';
import { getRateLimiter } from '@/server/rateLimit';
import { workerReports, type WorkerReport } from '@/server/observability/workers';

export type HealthReport = {
  status: 'ok' | 'degraded';
  database: { ok: boolean; driver: 'postgres' | 'pglite'; error?: string };
  rate_limit: { ok: boolean; backend: string; error?: string };
  checked_at: string;
};

const CHECK_TIMEOUT_MS = 2000;

/**
 * Liveness of what a request needs: the database answers `select 1`, and the
 * rate limiter's backend answers a ping. Shared by GET /api/health and the
 * tRPC `system.health` procedure. Never throws.
 */
export async function checkHealth(): Promise<HealthReport> {
  const [database, rate_limit] = await Promise.all([checkDatabase(), checkRateLimiter()]);
  return { status: database.ok && rate_limit.ok ? 'ok' : 'degraded', database, rate_limit, checked_at: new Date().toISOString() };
}

async function checkDatabase(): Promise<HealthReport['database']> {
  const driver = getConfig().databaseUrl ? 'postgres' : 'pglite';
  try {
    const handle = await withTimeout(getDbHandle(), 'opening the database');
    await withTimeout(handle.ping(), 'select 1');
    return { ok: true, driver: handle.driver };
  } catch (err) {
    return { ok: false, driver, error: message(err) };
  }
}

async function checkRateLimiter(): Promise<HealthReport['rate_limit']> {
  try {
    const limiter = getRateLimiter();
    const r = await withTimeout(limiter.ping(), 'rate limiter ping');
    return r.error ? { ok: r.ok, backend: r.backend, error: r.error } : { ok: r.ok, backend: r.backend };
  } catch (err) {
    return { ok: false, backend: 'unknown', error: message(err) };
  }
}

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function message(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m.length > 300 ? m.slice(0, 300) + '…' : m;
}

/** GET /api/health/live: the process answers (no dependency is asked; a restart is the remedy when it does not). */
export function checkLive(): { status: 'ok'; uptime_seconds: number; checked_at: string } {
  return { status: 'ok', uptime_seconds: Math.round(process.uptime()), checked_at: new Date().toISOString() };
}

export type ReadinessReport = {
  status: 'ready' | 'not_ready';
  database: { ok: boolean; driver: 'postgres' | 'pglite'; migrated: boolean; error?: string };
  redis: { ok: boolean; configured: boolean; backend: string; error?: string };
  workers: { ok: boolean; running: WorkerReport[]; error?: string };
  checked_at: string;
};

/**
 * GET /api/health/ready (docs/operations.md "Health"): this instance should get traffic when
 * the database answers and has every migration this build knows applied, the shared Redis
 * answers when one is configured (REDIS_URL or Upstash; without one, per-instance limits are
 * the configuration, not a fault), and the background workers (sweeper, calendar sync when on,
 * webhook delivery) are running. Never throws.
 */
export async function checkReady(): Promise<ReadinessReport> {
  const config = getConfig();
  const [database, limiter] = await Promise.all([checkMigrated(), checkRateLimiter()]);
  const configured = !!(config.redisUrl || (config.upstashUrl && config.upstashToken));
  const redis = { ...limiter, configured, ok: configured ? limiter.ok && limiter.backend !== 'memory-fallback' : true };
  const running = workerReports();
  const workers = running.length === 0 ? { ok: false, running, error: 'workers not started' } : { ok: running.every((w) => w.ok), running };
  const ok = database.ok && database.migrated && redis.ok && workers.ok;
  return { status: ok ? 'ready' : 'not_ready', database, redis, workers, checked_at: new Date().toISOString() };
}

async function checkMigrated(): Promise<ReadinessReport['database']> {
  const driver = getConfig().databaseUrl ? 'postgres' : 'pglite';
  try {
    const handle = await withTimeout(getDbHandle(), 'opening the database');
    const [applied, known] = await Promise.all([withTimeout(latestAppliedMigration(handle.db), 'reading the migration journal'), newestKnownMigration()]);
    const migrated = applied !== null && applied >= known;
    return migrated ? { ok: true, driver: handle.driver, migrated } : { ok: true, driver: handle.driver, migrated, error: `the database lacks migrations of this build (newest applied ${applied}, newest known ${known})` };
  } catch (err) {
    return { ok: false, driver, migrated: false, error: message(err) };
  }
}

let knownMigration: Promise<number> | undefined;
/** The newest `when` of db/migrations/meta/_journal.json (read once). */
function newestKnownMigration(): Promise<number> {
  knownMigration ??= fs
    .readFile(path.join(getConfig().migrationsDir, 'meta', '_journal.json'), 'utf8')
    .then((text) => Math.max(0, ...(JSON.parse(text) as { entries: { when: number }[] }).entries.map((e) => e.when)))
    .catch((err) => {
      knownMigration = undefined;
      throw err;
    });
  return knownMigration;
}
