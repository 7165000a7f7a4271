/**
 * A driver's own way to run a db/hot statement (db/hot/driver.ts queryRows): the embedded
 * database's client, and each of its transactions, offer one under this key
 * (db/drivers/pglitePrepared.ts). Kept apart so db/hot does not load PGlite on PostgreSQL.
 */
export const HOT_STATEMENT = Symbol.for('agent-scheduler.hot-statement');

/** `planEachTime`: parse and plan the statement for its values at every execution (no cached generic plan). */
export type HotStatementOptions = { planEachTime?: boolean };

export type HotStatement = (text: string, params: readonly (string | number | boolean | null)[], opts?: HotStatementOptions) => Promise<Record<string, unknown>[]>;
