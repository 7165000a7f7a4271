import { is } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { PostgresJsSession } from 'drizzle-orm/postgres-js/session';
import type { Db, Executor, Tx } from '../client';
import { pgErrorInfo } from '../errors';
import { HOT_STATEMENT, type HotStatement, type HotStatementOptions } from '../drivers/hotStatement';

/**
 * How the hand-written statements of db/hot run (docs/architecture.md, "Where SQL lives").
 *
 * A statement is fixed SQL text with $n parameters, handed to the driver under the drizzle
 * database or transaction, reached through drizzle's public session (`executor._.session`),
 * so a statement costs microseconds to issue instead of the query builder walking every
 * column (0.1 to 0.2 ms each; docs/benchmarks/history/2026-11-26-reschedule.md):
 * - postgres.js: the session's `client` (a public field of drizzle's PostgresJsSession: the
 *   pool, or the transaction's connection, wrapped by db/drivers/preparedStatements.ts), as a
 *   named prepared statement (one round trip from its second use), queued at once with
 *   `execute()`, so statements issued without awaiting in between are pipelined;
 * - PGlite: the prepared path its client (or transaction) offers under HOT_STATEMENT
 *   (db/drivers/pglitePrepared.ts): a named prepared statement, bound and executed in one batch
 *   of protocol messages (in process, there is nothing to pipeline); a client without it (a
 *   drizzle database made elsewhere) goes through the session's `prepareQuery(...).execute()`,
 *   the path drizzle's own `execute` takes.
 * Failures arrive as the driver's error (postgres.js) or wrapped (PGlite: DrizzleQueryError);
 * db/errors.ts reads the code through both. Rows come back as the driver gives them
 * (timestamps as text, as drizzle configures both drivers; jsonb parsed); db/hot/columns.ts
 * maps them to the schema's row types.
 *
 * Parameters: strings, numbers, booleans and null only.
 */
export type RawRow = Record<string, unknown>;
export type Param = string | number | boolean | null;

type PostgresJsClient = { unsafe(text: string, params: Param[], options: { prepare: boolean }): { execute(): PromiseLike<RawRow[]> } };

/** `opts.planEachTime`: on PGlite, plan it for its values at every execution (db/drivers/pglitePrepared.ts); PostgreSQL prepares it as any other. */
export async function queryRows(db: Executor, sqlText: string, params: Param[], opts?: HotStatementOptions): Promise<RawRow[]> {
  const session = db._.session;
  if (is(session, PostgresJsSession)) return (session.client as unknown as PostgresJsClient).unsafe(sqlText, params, { prepare: true }).execute();
  // PgliteSession keeps its client (our traced PGlite or transaction, db/drivers/pglite.ts) in a field of that name.
  const hot = (session as unknown as { client?: { [HOT_STATEMENT]?: HotStatement } }).client?.[HOT_STATEMENT];
  if (hot) return hot(sqlText, params, opts);
  const result = (await session.prepareQuery({ sql: sqlText, params }, undefined, undefined, false).execute()) as { rows: RawRow[] };
  return result.rows;
}

/**
 * Statements a transaction of runTransaction has issued without awaiting them (defer):
 * the transaction awaits them before it commits.
 */
const deferredOf = new WeakMap<Executor, Promise<unknown>[]>();

/**
 * Issue a statement whose result the caller does not wait for: it is on the wire at once,
 * and the transaction it runs in (runTransaction) awaits it before COMMIT, which on
 * postgres.js goes out in the same write. A failure surfaces as the transaction's failure
 * and makes it roll back. Defer db/hot statements: they are queued in call order. A drizzle
 * builder query is queued some microtasks after it is issued, behind hot statements issued
 * after it, so deferring one next to hot statements can reorder them.
 */
export function defer(tx: Executor, statement: PromiseLike<unknown>): void {
  const list = deferredOf.get(tx);
  if (!list) throw new Error('db/hot defer: only inside runTransaction');
  // then() now, not in a microtask (Promise.resolve would), so it goes out in call order.
  const p = new Promise<unknown>((resolve, reject) => statement.then(resolve, reject));
  p.catch(() => {}); // awaited by runTransaction; this only keeps it from counting as unhandled meanwhile
  list.push(p);
}

/**
 * A transaction whose statements may be deferred. When `fn` returns, COMMIT is sent right
 * behind the statements still in flight (postgres.js: the same write, so the claim, its
 * audit row, the idempotent answer and COMMIT cost one round trip), then they are awaited:
 * if one failed, PostgreSQL has answered the COMMIT with a rollback and that failure is
 * thrown. If `fn` throws, the first failed deferred statement (the cause of later "current
 * transaction is aborted" errors) is thrown instead of its error, when there is one. On
 * PGlite (in process, no round trips) the deferred statements are awaited and the
 * transaction commits as drizzle's does. Run on a transaction (`db` a Tx), it is a savepoint of
 * it: the deferred statements are awaited before it is released, and COMMIT stays the outer
 * transaction's.
 */
export function runTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const deferred: Promise<unknown>[] = [];
    deferredOf.set(tx, deferred);
    let result: T;
    try {
      result = await fn(tx);
    } catch (err) {
      throw (await firstFailure(deferred)) ?? err;
    }
    if (deferred.length) {
      // Nested in a caller's transaction (a savepoint): its COMMIT is the caller's, not sent here.
      if (!is(db, PgTransaction)) commitEarly(tx);
      const failure = await firstFailure(deferred);
      if (failure) throw failure;
    }
    return result;
  });
}

/** PostgreSQL's answer to every statement after a failed one in the same transaction. */
const IN_FAILED_TRANSACTION = '25P02';

/** The failure that caused the others: the first one that is not "current transaction is aborted". */
async function firstFailure(statements: Promise<unknown>[]): Promise<unknown> {
  const failures = (await Promise.allSettled(statements)).flatMap((s) => (s.status === 'rejected' ? [s.reason] : []));
  return failures.find((f) => pgErrorInfo(f).code !== IN_FAILED_TRANSACTION) ?? failures[0];
}

/**
 * Send COMMIT behind the statements issued so far (see pipelinedBegin in
 * db/drivers/preparedStatements.ts, whose transaction client offers `commitEarly`). The
 * transaction then refuses further statements. PGlite: nothing to do.
 */
function commitEarly(tx: Executor): void {
  const session = tx._.session;
  if (is(session, PostgresJsSession)) (session.client as { commitEarly?: () => void }).commitEarly?.();
}
