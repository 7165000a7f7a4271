/** PostgreSQL error details from a (possibly Drizzle-wrapped) driver error. */
export function pgErrorInfo(err: unknown): { code?: string; constraint?: string } {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const o = e as { code?: unknown; constraint_name?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) {
      const constraint = (o.constraint_name ?? o.constraint) as string | undefined;
      return { code: o.code, constraint };
    }
    e = o.cause;
  }
  return {};
}

export const PG_EXCLUSION_VIOLATION = '23P01';
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_DEADLOCK = '40P01';
export const PG_SERIALIZATION_FAILURE = '40001';

export function isConstraintViolation(err: unknown, code: string, constraint?: string): boolean {
  const info = pgErrorInfo(err);
  return info.code === code && (constraint === undefined || info.constraint === constraint);
}

/**
 * SQLSTATEs of a primary that went away or stopped being one (docs/operations.md "High
 * availability"): the server shutting down or restarting (57P01 admin_shutdown, 57P02
 * crash_shutdown, 57P03 cannot_connect_now), a standby refusing a write after a demotion
 * (25006 read_only_sql_transaction), and the connection exceptions (class 08, which PgBouncer
 * also answers when it cannot reach a server).
 */
const PRIMARY_LOST_SQLSTATES = new Set(['57P01', '57P02', '57P03', '25006', '08000', '08001', '08003', '08004', '08006', '08007', '08P01']);
/** The driver's and the socket's codes of a connection that failed, closed or never opened. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/**
 * Did this fail because the database (its primary) could not be reached or was no primary,
 * rather than because of the request? Such a failure is answered 503 service_unavailable: a
 * COMMIT sent on a connection that then broke may or may not have committed, so nothing may be
 * claimed either way. Reads the code through drizzle's wrapping and AggregateErrors (several hosts).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const queue: unknown[] = [err];
  for (let seen = 0; queue.length && seen < 12; seen++) {
    const e = queue.shift();
    if (!e || typeof e !== 'object') continue;
    const o = e as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof o.code === 'string' && (PRIMARY_LOST_SQLSTATES.has(o.code) || CONNECTION_CODES.has(o.code))) return true;
    if (o.cause) queue.push(o.cause);
    if (Array.isArray(o.errors)) queue.push(...o.errors);
  }
  return false;
}

/** Codes after which the connection itself is gone (a FATAL from the server, or the socket closed). */
const CONNECTION_GONE_SQLSTATES = new Set(['57P01', '57P02', '08000', '08003', '08006', '08007', '08P01']);

/**
 * Did the connection this error came from close? Then nothing more may be sent on it: postgres.js
 * 3.4 throws from a timer (an uncaught exception that ends the process) when a reserved
 * connection whose socket closed is written to, so a transaction's ROLLBACK is skipped then
 * (the server rolled it back when the session ended).
 */
export function isConnectionGone(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_GONE_SQLSTATES.has(code) || CONNECTION_CODES.has(code))) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
