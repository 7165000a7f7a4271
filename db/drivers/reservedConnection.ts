import type postgres from 'postgres';
import { isConnectionGone } from '../errors';

/**
 * How long a transaction waits for a connection of its own before it fails as the database
 * being unavailable (503): the pool's own connect timeout is 30 s, and a request waiting this long
 * for a free connection is lost to its client anyway.
 */
const RESERVE_WAIT_MS = 10_000;

/**
 * The part of postgres.js 3.4.9's connection object this uses, as the driver hands it to a
 * statement's `onexecute` option (its own `begin` takes the connection that way): `onclose` is
 * called once when the connection closes (its `begin` races the transaction with it), and
 * `reserved`, set while the connection is reserved, is cleared when it closes.
 */
type DriverConnection = { onclose: ((err: unknown) => void) | null; reserved: unknown };

/**
 * A connection reserved for one transaction (pipelinedBegin in ./preparedStatements.ts), guarded
 * against three failures of postgres.js 3.4.9's `reserve()`/`release()` when the connection closes
 * (a failover, PgBouncer dropping its clients), each of which left a request waiting for ever:
 *
 * - `release()` of a connection that closed puts it among the open ones (src/index.js `onopen`);
 *   statements then sent on it are written to no socket (a TypeError thrown from a timer) and never
 *   answered (porsager/postgres#1199). `release` here hands back only a connection still open.
 * - Statements sent on the reserved connection after it closed, and those queued behind a full
 *   pipeline when it closed, are never answered either (porsager/postgres#1186, #1168). Once it
 *   closed, `closed` rejects (CONNECTION_CLOSED) and `check()` throws that instead of sending.
 * - A `reserve()` queued for a connection is dropped when the connection it was waiting on closes
 *   and reconnects for it (porsager/postgres#1195): its promise never settles. The wait is bounded
 *   by RESERVE_WAIT_MS (an error answered 503); a connection granted after that goes back to the pool.
 *
 * The connection is known from the first statement's `onexecute`; until then (never, normally:
 * BEGIN is the first) a failure the driver reports as a lost connection counts as closed.
 */
export type Reservation = {
  sql: postgres.ReservedSql;
  /** Options for a statement on this connection: they make the driver name its connection. */
  track<O extends Record<string, unknown>>(options: O): O;
  /** Throws the connection's close, if it closed: nothing more may be written to it. */
  check(): void;
  /** Rejects with the close of the connection (handled: only for racing). */
  closed: Promise<never>;
  /** Did the connection close (or fail as closed: `failure`, when it is not known yet)? */
  isGone(failure?: unknown): boolean;
  /** Back to the pool if it is open; otherwise left to the pool, which reconnects it. Once. */
  release(failure?: unknown): void;
};

export async function reserveConnection(sql: postgres.Sql, waitMs = RESERVE_WAIT_MS): Promise<Reservation> {
  const reserved = await boundedReserve(sql, waitMs);
  let connection: DriverConnection | undefined;
  let gone: unknown = null;
  let released = false;
  let rejectClosed!: (err: unknown) => void;
  const closed = new Promise<never>((_, reject) => (rejectClosed = reject));
  closed.catch(() => {});
  const close = (err: unknown) => {
    gone ??= err ?? connectionClosed();
    rejectClosed(gone);
  };
  const onexecute = (c: DriverConnection) => {
    if (!connection && !released) {
      connection = c;
      // Closed already (between the grant and this statement): the pool cleared `reserved`.
      if (c.reserved == null) close(connectionClosed());
      else c.onclose = close;
    }
    return true; // the driver's "may send more" (execute's result)
  };
  const isGone = (failure?: unknown) => gone !== null || (connection ? connection.reserved == null : failure !== undefined && isConnectionGone(failure));
  return {
    sql: reserved,
    track: (options) => (connection ? options : { ...options, onexecute }),
    check: () => {
      if (gone !== null) throw gone;
    },
    closed,
    isGone,
    release: (failure) => {
      if (released) return;
      released = true;
      if (connection?.onclose === close) connection.onclose = null;
      if (!isGone(failure)) reserved.release();
    },
  };
}

async function boundedReserve(sql: postgres.Sql, waitMs: number): Promise<postgres.ReservedSql> {
  const pending = sql.reserve();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no database connection within ${waitMs} ms (the pool is reconnecting)`), { code: 'CONNECT_TIMEOUT' })), waitMs);
  });
  try {
    return await Promise.race([pending, timeout]);
  } catch (err) {
    // Granted after all (too late for this transaction): back to the pool.
    pending.then((late) => late.release(), () => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

function connectionClosed(): Error {
  return Object.assign(new Error('the database connection closed'), { code: 'CONNECTION_CLOSED' });
}
