import type { PgTable } from 'drizzle-orm/pg-core';
import { names } from '@/db/hot/columns';

/**
 * The parameters of a db/hot insert (insertStatement: every column, in the table's order) from
 * values by property, `missing` for the others: by name, so a column added to the table cannot
 * shift the others (the pgbench script and the raw postgres.js row send the service's inserts).
 */
export function insertArgs<T extends PgTable, V>(table: T, values: { [K in keyof ReturnType<typeof names<T>>]?: V }, missing: V): V[] {
  const given = values as Record<string, V | undefined>;
  return Object.keys(names(table)).map((key) => given[key] ?? missing);
}
