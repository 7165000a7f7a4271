import type postgres from 'postgres';
import { statementTracer } from '../tracing';
import { reserveConnection, type Reservation } from './reservedConnection';

type AnySql = postgres.Sql | postgres.TransactionSql | postgres.ReservedSql;
type Callback = (sql: AnySql) => unknown;

/**
 * Makes every query drizzle sends through postgres.js a named prepared
 * statement. drizzle-orm/postgres-js runs queries not built with
 * `.prepare(name)` as `client.unsafe(text, params, { prepare: false })`, and
 * postgres.js sends such an unnamed statement with parameters as Parse +
 * Describe, waits for the parameter types, then Bind + Execute: two round
 * trips, and PostgreSQL plans the text again every time. Named, the statement
 * is cached per connection and from its second use costs one round trip
 * (measured in docs/benchmarks/history/2026-11-22-booking-throughput.md).
 *
 * The proxy forces `prepare: true` on `unsafe` and wraps the Sql handed to
 * `begin`/`savepoint` callbacks the same way, since drizzle's transactions
 * run on those. Statements whose text varies with their values (`inArray`
 * lists) make more entries in the cache; postgres.js drops a connection's
 * cache with the connection (`max_lifetime`).
 *
 * `prepare: false` (DATABASE_PREPARE=0, behind a transaction pooler such as PgBouncer 1.18,
 * whose server connections change between transactions and so cannot keep named statements)
 * forces unnamed statements instead: the same pipelining and transactions, each statement
 * parsed and planned every time (docs/operations.md "High availability").
 */
export function preparedStatements<T extends AnySql>(sql: T, prepare = true, tx?: PipelinedTransaction): T {
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (text: string, params?: unknown[], options?: Record<string, unknown>) => {
          if (tx?.commit) throw new Error('statement sent after the transaction committed (runTransaction in db/hot/driver.ts)');
          tx?.connection.check(); // its connection closed: nothing is written to it (./reservedConnection.ts)
          const opts = { ...options, prepare };
          const issue = () => (target.unsafe as (t: string, p?: unknown[], o?: Record<string, unknown>) => PromiseLike<unknown>)(text, params, tx ? tx.connection.track(opts) : opts);
          // Every statement drizzle and db/hot send passes here: its span when tracing is on (../tracing.ts).
          return statementTracer ? statementTracer(text, issue) : issue();
        };
      }
      if (prop === 'commitEarly' && tx) {
        return () => {
          if (tx.commit) return;
          const commit: Promise<unknown> = send(tx, 'commit');
          commit.catch(() => {}); // awaited by pipelinedBegin
          tx.commit = commit;
        };
      }
      if (prop === 'savepoint' && tx) {
        return (...args: unknown[]) => pipelinedSavepoint(tx, receiver as AnySql, args.pop() as Callback);
      }
      if (prop === 'begin' && 'reserve' in target) {
        return (...args: unknown[]) => {
          const fn = args.pop() as Callback;
          // Options (isolation levels) take postgres.js's own path; the service passes none.
          return args.length ? (target.begin as (...a: unknown[]) => unknown)(...args, (inner: AnySql) => fn(preparedStatements(inner, prepare))) : pipelinedBegin(target, fn, prepare);
        };
      }
      if (prop === 'begin' || prop === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as Callback;
          return (Reflect.get(target, prop, receiver) as (...a: unknown[]) => unknown)(...args, (inner: AnySql) => fn(preparedStatements(inner, prepare)));
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

/** A transaction of pipelinedBegin: its COMMIT once sent early (see runTransaction in db/hot/driver.ts). */
type PipelinedTransaction = { commit: Promise<unknown> | null; savepoints: number; connection: Reservation };

/** A statement of the transaction's own on its connection; rejects (never writes) once the connection closed. */
function send(tx: PipelinedTransaction, text: string): Promise<unknown> {
  const c = tx.connection;
  try {
    c.check();
  } catch (err) {
    return Promise.reject(err);
  }
  return Promise.race([c.sql.unsafe(text, [], c.track({})).execute(), c.closed]);
}

/**
 * A transaction whose BEGIN goes out with its first statements instead of
 * taking a round trip of its own (postgres.js's `begin` awaits it first).
 * `begin` is fixed text, so it cannot fail on its own: whatever breaks it
 * (a lost connection) fails every statement after it too. The rest is
 * postgres.js's `begin`: statements on one reserved connection, COMMIT when
 * the callback resolves, ROLLBACK when it throws. COMMIT can also go out
 * early, right behind the transaction's last statements (`commitEarly`); a
 * statement failing before it turns it into a rollback, which PostgreSQL
 * answers without an error, and the failure reaches the callback as usual.
 * A nested drizzle transaction is a savepoint (pipelinedSavepoint).
 */
async function pipelinedBegin(sql: postgres.Sql, fn: Callback, prepare: boolean): Promise<unknown> {
  const connection = await reserveConnection(sql);
  const tx: PipelinedTransaction = { commit: null, savepoints: 0, connection };
  const began = send(tx, 'begin');
  began.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
  let failure: unknown;
  try {
    // Raced with the connection's close: statements queued behind a full pipeline then are never answered.
    const result = await Promise.race([fn(preparedStatements(connection.sql, prepare, tx)), connection.closed]);
    await began;
    await (tx.commit ?? send(tx, 'commit'));
    return result;
  } catch (err) {
    failure = err;
    // A connection that closed (the primary went away, PgBouncer dropped it) takes nothing more,
    // whatever the error the transaction failed with; the server rolled it back with the session.
    if (!connection.isGone(err)) await send(tx, 'rollback').catch(() => {});
    throw err;
  } finally {
    // Handed back only if still open (./reservedConnection.ts); a closed one the pool reconnects.
    connection.release(failure);
  }
}

/**
 * A drizzle transaction nested in a pipelined one (an administrative change
 * and its audit row inside a caller's transaction): SAVEPOINT, the callback
 * on the same connection, RELEASE; on failure ROLLBACK TO the savepoint, so
 * the outer transaction can go on, and the error reaches the caller.
 */
async function pipelinedSavepoint(tx: PipelinedTransaction, sql: AnySql, fn: Callback): Promise<unknown> {
  const name = `s${++tx.savepoints}`;
  await send(tx, `savepoint ${name}`);
  try {
    const result = await fn(sql);
    await send(tx, `release savepoint ${name}`);
    return result;
  } catch (err) {
    if (!tx.connection.isGone(err)) await send(tx, `rollback to savepoint ${name}`).catch(() => {});
    throw err;
  }
}
