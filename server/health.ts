import { getDbHandle } from '@/server/db';
import { getConfig } from '@/server/config';
import { getRateLimiter } from '@/server/rateLimit';

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
