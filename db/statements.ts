import { getTableColumns } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from './types';

/**
 * Hand-written statements for the hot paths (claim decisions, availability
 * look-ups, the audit row): fixed SQL text with $n parameters, sent straight
 * to the driver underneath the drizzle database or transaction, so a
 * statement costs microseconds to issue instead of drizzle's builder walking
 * every column reference (0.1 to 0.2 ms each; docs/benchmarks.md, "Booking
 * throughput"). On postgres.js they are named prepared statements (one round
 * trip from the second use); several issued without awaiting in between are
 * pipelined on the transaction's connection. Rows come back as the driver
 * gives them (timestamps as text, as drizzle configures both drivers; jsonb
 * parsed) and become the schema's row types through the columns' own mappers,
 * so they match what the query builder returns.
 *
 * Parameters: strings, numbers, booleans and null only (`isoOrNull` for
 * instants, `JSON.stringify` for jsonb, `pgArray` for arrays).
 */
export type RawRow = Record<string, unknown>;
type Param = string | number | boolean | null;

type PostgresJsClient = { unsafe(text: string, params: Param[], options: { prepare: boolean }): { execute(): PromiseLike<RawRow[]> } };
type PgliteClient = { query(text: string, params: Param[], options: object): Promise<{ rows: RawRow[] }> };

/** PGlite parses like drizzle's own PGlite session does: date and time types stay text. */
const text = (value: string) => value;
const PGLITE_OPTIONS = { rowMode: 'object', parsers: { 1082: text, 1114: text, 1184: text, 1186: text } };

/** The driver client a drizzle database or transaction runs on (drizzle keeps it as `session.client`). */
function driverOf(db: Executor): PostgresJsClient | PgliteClient {
  const client = (db as unknown as { session?: { client?: PostgresJsClient | PgliteClient } }).session?.client;
  if (!client) throw new Error('db/statements: no driver client under this drizzle executor');
  return client;
}

export async function queryRows(db: Executor, sqlText: string, params: Param[]): Promise<RawRow[]> {
  const client = driverOf(db);
  // execute(): queued now, in call order (postgres.js otherwise sends a statement when first awaited).
  if ('unsafe' in client) return client.unsafe(sqlText, params, { prepare: true }).execute();
  return (await client.query(sqlText, params, PGLITE_OPTIONS)).rows;
}

/**
 * Send COMMIT right behind the statements just issued, in the same write
 * instead of a round trip of its own, for a transaction whose remaining work
 * is only to await them. A statement failing before it makes it a rollback and
 * the failure surfaces as usual. Afterwards the transaction refuses further
 * statements (they would run outside it). On PGlite (in process, no round
 * trips) it does nothing: the transaction commits when its callback returns.
 */
export function commitWithLastStatements(db: Executor): void {
  (driverOf(db) as { commitEarly?: () => void }).commitEarly?.();
}

type Columns<T extends PgTable> = T['_']['columns'];

type Row<T extends PgTable> = T['$inferSelect'];

function columnsOf<T extends PgTable>(table: T, omit: readonly (keyof Row<T>)[]) {
  return Object.entries(getTableColumns(table) as Columns<T>).filter(([key]) => !omit.includes(key as keyof Row<T>));
}

/** `"alias"."column" as "prefix_column", ...` for the columns of a table (less `omit`, by property name). */
export function columnList<T extends PgTable>(table: T, alias: string, prefix: string, omit: readonly (keyof Row<T>)[] = []): string {
  return columnsOf(table, omit)
    .map(([, c]) => `"${alias}"."${c.name}" as "${prefix}${c.name}"`)
    .join(', ');
}

/** Turns a raw row (columns aliased by `columnList` with the same prefix and `omit`) into the table's row type. */
export function rowMapper<T extends PgTable, K extends keyof Row<T> = never>(table: T, prefix: string, omit: readonly K[] = []): (raw: RawRow) => Omit<Row<T>, K> {
  const columns = columnsOf(table, omit).map(([key, column]) => ({ key, name: `${prefix}${column.name}`, column }));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const { key, name, column } of columns) {
      const value = raw[name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as Omit<Row<T>, K>;
  };
}

export const isoOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

/** A PostgreSQL array literal of uuids or other tokens that need no quoting. */
export function pgArray(values: readonly string[]): string {
  return `{${values.join(',')}}`;
}

/** An instant from a driver's timestamptz text (as drizzle's column mapper reads it). */
export function instantFrom(value: unknown): Date {
  return value instanceof Date ? value : new Date(value as string);
}
