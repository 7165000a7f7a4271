import { getTableColumns, getTableName, is, SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Param, RawRow } from './driver';

/**
 * Column lists of the hand-written statements, derived from the Drizzle tables
 * (`getTableColumns`), so a column added to or renamed in db/schema reaches them, and rows
 * mapped with the columns' own mappers, so they equal what the query builder returns
 * (tests/integration/platform/hotStatements.test.ts holds each statement to that).
 */
type Row<T extends PgTable> = T['$inferSelect'];

function columnsOf<T extends PgTable>(table: T, keep: (key: string) => boolean): [string, PgColumn][] {
  return Object.entries(getTableColumns(table) as Record<string, PgColumn>).filter(([key]) => keep(key));
}

const without = (omit: readonly PropertyKey[]) => (key: string) => !omit.includes(key);

/**
 * An instant column or expression as epoch milliseconds (float8, fractional below the millisecond).
 * Equal, bit for bit, to `(extract(epoch from x) * 1000)::float8` for every instant from 1833 to
 * 2106 (|seconds since 1970| < 2^32), without its numeric arithmetic (`extract` answers numeric
 * since PostgreSQL 14, and numeric to float8 goes through text). The float8 `date_part` is
 * (microseconds since 1970) / 10^6 correctly rounded, off by at most 2^-23 s in that range; times
 * 10^6 (a rounding of at most 1/4) it is within 1/2 of the whole microseconds, which `::int8`
 * restores exactly, and the float8 division by 1000 is the correctly rounded quotient, as the
 * numeric cast is. Past 2106 it may differ by a microsecond. It took 3-4 ms off the 5-8 ms
 * PostgreSQL spent answering ten owners' 1,840 claims (docs/benchmarks/history/2026-11-26-collective-search.md;
 * tests/integration/platform/epochMs.test.ts).
 */
export const epochMs = (expr: string): string => `((date_part('epoch', ${expr}) * 1000000)::int8::float8 / 1000)`;

/** The SQL names of a table's columns by property: `names(claims).startAt` is `start_at`. */
export function names<T extends PgTable>(table: T): { [K in keyof Row<T>]: string } {
  return Object.fromEntries(columnsOf(table, () => true).map(([key, c]) => [key, c.name])) as { [K in keyof Row<T>]: string };
}

/** `"alias"."column" as "prefix_column", ...` for the columns of a table (less `omit`, by property name). */
export function columnList<T extends PgTable>(table: T, alias: string, prefix: string, omit: readonly (keyof Row<T>)[] = []): string {
  return columnsOf(table, without(omit))
    .map(([, c]) => `"${alias}"."${c.name}" as "${prefix}${c.name}"`)
    .join(', ');
}

/** Turns a raw row (columns aliased by `columnList` with the same prefix and `omit`) into the table's row type. */
export function rowMapper<T extends PgTable, K extends keyof Row<T> = never>(table: T, prefix: string, omit: readonly K[] = []): (raw: RawRow) => Omit<Row<T>, K> {
  const columns = columnsOf(table, without(omit)).map(([key, column]) => ({ key, name: `${prefix}${column.name}`, column }));
  return (raw) => {
    const row: Record<string, unknown> = {};
    for (const { key, name, column } of columns) {
      const value = raw[name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as Omit<Row<T>, K>;
  };
}

/** `"column", ...` (unqualified, unaliased) of the named properties, for RETURNING lists read by `pickMapper`. */
export function pickList<T extends PgTable>(table: T, keys: readonly (keyof Row<T>)[]): string {
  return columnsOf(table, (k) => keys.includes(k as keyof Row<T>))
    .map(([, c]) => `"${c.name}"`)
    .join(', ');
}

/** Maps rows selected with `pickList` (no prefix) to those properties of the row type. */
export function pickMapper<T extends PgTable, K extends keyof Row<T>>(table: T, keys: readonly K[]): (raw: RawRow) => Pick<Row<T>, K> {
  const omit = columnsOf(table, (k) => !keys.includes(k as K)).map(([k]) => k as keyof Row<T>);
  return rowMapper(table, '', omit) as unknown as (raw: RawRow) => Pick<Row<T>, K>;
}

/**
 * An INSERT of every column of a table, in the table's column order, with its parameters
 * from a row to insert. `fullRow` is the row as it reads back: values given, else the
 * schema's literal defaults, else null (a column whose default is SQL, such as
 * `defaultNow()`, must be given; the statement has no way to ask for DEFAULT).
 */
export function insertStatement<T extends PgTable>(table: T) {
  const columns = columnsOf(table, () => true);
  const text = `insert into "${getTableName(table)}" (${columns.map(([, c]) => `"${c.name}"`).join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
  // What a missing value becomes: the schema's literal default, null, or an error (a default computed in SQL or JS).
  const missing = columns.map(([key, c]) => {
    if (c.hasDefault && c.default !== undefined && !is(c.default, SQL)) {
      const d = c.default as unknown;
      // An object default (a jsonb `[]`) is copied per row, so rows never share it.
      return { key, value: typeof d === 'object' && d !== null ? () => structuredClone(d) : () => d, computed: false };
    }
    return { key, value: () => null, computed: c.hasDefault || c.defaultFn !== undefined };
  });
  function fullRow(values: T['$inferInsert']): Row<T> {
    const given = values as Record<string, unknown>;
    const row: Record<string, unknown> = {};
    for (const m of missing) {
      const v = given[m.key];
      if (v !== undefined) row[m.key] = v;
      else if (m.computed) throw new Error(`db/hot insert into ${getTableName(table)}: ${m.key} needs a value (its default is computed)`);
      else row[m.key] = m.value();
    }
    return row as Row<T>;
  }
  function params(row: Row<T>): Param[] {
    const r = row as Record<string, unknown>;
    return columns.map(([key, c]) => (r[key] === null ? null : (c.mapToDriverValue(r[key]) as Param)));
  }
  return { text, fullRow, params };
}
