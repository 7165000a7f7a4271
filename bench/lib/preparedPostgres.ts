/**
 * Prototype of a proposed fix, measured by bench/booking.ts (not used by the
 * service): make drizzle's queries named prepared statements on postgres.js.
 *
 * drizzle-orm/postgres-js runs every query built without `.prepare(name)`
 * as `client.unsafe(text, params, { prepare: false })`. postgres.js sends an
 * unnamed statement that has parameters as Parse + Describe + Flush, waits for
 * the parameter types, and only then sends Bind + Execute + Sync: two round
 * trips per query (connection.js: `describeFirst = parameters.length &&
 * !prepared`). With `prepare: true` the statement is named and cached per
 * connection, so from the second use on it is one round trip (Bind + Execute).
 *
 * The wrapper forces `prepare: true` on `unsafe` and wraps the Sql handed to
 * `begin`/`savepoint` callbacks the same way (drizzle's transactions run on
 * those). Applying it in db/drivers/postgres.ts is a one-line change there:
 *   const db = drizzle(preparedStatements(sql), { schema })
 */
import postgres from 'postgres';
import { drizzle } from 'drizzle-orm/postgres-js';
import type { Db } from '@/db/client';
import * as schema from '@/db/schema';

type AnySql = postgres.Sql | postgres.TransactionSql;
type Callback = (sql: AnySql) => unknown;

export function preparedStatements<T extends AnySql>(sql: T): T {
  return new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (text: string, params?: unknown[], options?: Record<string, unknown>) =>
          (target.unsafe as (t: string, p?: unknown[], o?: Record<string, unknown>) => unknown)(text, params, { ...options, prepare: true });
      }
      if (prop === 'begin' || prop === 'savepoint') {
        return (...args: unknown[]) => {
          const fn = args.pop() as Callback;
          return (Reflect.get(target, prop, receiver) as (...a: unknown[]) => unknown)(...args, (inner: AnySql) => fn(preparedStatements(inner)));
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}

/** A Db like db/drivers/postgres.ts opens (no migrations), with named prepared statements. */
export function openPreparedPostgres(url: string, max: number): { db: Db; close(): Promise<void> } {
  const sql = postgres(url, { max, onnotice: () => {} });
  const db = drizzle(preparedStatements(sql), { schema }) as unknown as Db;
  return { db, close: () => sql.end({ timeout: 5 }) };
}
