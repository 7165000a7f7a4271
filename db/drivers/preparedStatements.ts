import type postgres from 'postgres';
import { isConnectionGone } from '../errors';
import { statementTracer } from '../tracing';

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
          const issue = () => (target.unsafe as (t: string, p?: unknown[], o?: Record<string, unknown>) => PromiseLike<unknown>)(text, params, { ...options, prepare });
          // Every statement drizzle and db/hot send passes here: its span when tracing is on (../tracing.ts).
          return statementTracer ? statementTracer(text, issue) : issue();
        };
      }
      if (prop === 'commitEarly' && tx) {
        return () => {
          if (tx.commit) return;
          const commit: Promise<unknown> = (target as postgres.ReservedSql).unsafe('commit').execute();
          commit.catch(() => {}); // awaited by pipelinedBegin
          tx.commit = commit;
        };
      }
      if (prop === 'savepoint' && tx) {
        return (...args: unknown[]) => pipelinedSavepoint(target as postgres.ReservedSql, tx, receiver as AnySql, args.pop() as Callback);
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
type PipelinedTransaction = { commit: Promise<unknown> | null; savepoints: number };

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
  const reserved = await sql.reserve();
  const tx: PipelinedTransaction = { commit: null, savepoints: 0 };
  let released = false;
  const began = reserved.unsafe('begin').execute();
  began.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
  try {
    const result = await fn(preparedStatements(reserved, prepare, tx));
    await began;
    await (tx.commit ?? reserved.unsafe('commit'));
    return result;
  } catch (err) {
    // A connection that closed (the primary went away) takes nothing more (isConnectionGone in
    // ../errors.ts), and is not handed back: postgres.js 3.4's release() would put the closed
    // connection among its open ones, where later queries wait on it forever; left alone, the
    // pool reconnects it for the next query.
    if (isConnectionGone(err)) {
      released = true;
      throw err;
    }
    await reserved.unsafe('rollback').catch(() => {});
    throw err;
  } finally {
    if (!released) reserved.release();
  }
}

/**
 * A drizzle transaction nested in a pipelined one (an administrative change
 * and its audit row inside a caller's transaction): SAVEPOINT, the callback
 * on the same connection, RELEASE; on failure ROLLBACK TO the savepoint, so
 * the outer transaction can go on, and the error reaches the caller.
 */
async function pipelinedSavepoint(reserved: postgres.ReservedSql, tx: PipelinedTransaction, sql: AnySql, fn: Callback): Promise<unknown> {
  const name = `s${++tx.savepoints}`;
  await reserved.unsafe(`savepoint ${name}`);
  try {
    const result = await fn(sql);
    await reserved.unsafe(`release savepoint ${name}`);
    return result;
  } catch (err) {
    if (!isConnectionGone(err)) await reserved.unsafe(`rollback to savepoint ${name}`).catch(() => {});
    throw err;
  }
}
