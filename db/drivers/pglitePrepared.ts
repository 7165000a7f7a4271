import { protocol, types, type PGlite, type Transaction } from '@electric-sql/pglite';
import { DrizzleQueryError } from 'drizzle-orm/errors';
import type { HotStatement } from './hotStatement';

/**
 * The embedded database's path for db/hot statements (db/hot/driver.ts queryRows): each fixed
 * statement text is parsed once per database as a named prepared statement, then only bound and
 * executed, all in one batch of protocol messages (Parse on first use, Bind, Describe, Execute,
 * Sync). PGlite's own `query` sends six batches per statement (Parse, Describe, Bind, Describe,
 * Execute, Sync, each through its protocol code) and parses, analyses and plans the text every
 * time (docs/benchmarks/history/2026-11-29-webhooks-embedded-cpu.md). PostgreSQL's path already
 * prepares every statement (postgres.js, db/drivers/preparedStatements.ts): both databases now
 * plan a hot statement the same way (the plan cache: custom plans first, a generic one when it
 * costs no more). A statement marked `planEachTime` runs as the unnamed statement, parsed and
 * planned for its values at every execution: the webhook lease, whose generic plan cost PGlite
 * about 20 ms of CPU per execution that leased a row, against 1-2.5 ms planned each time (the
 * same plan shape; measured in bench/webhooks.ts).
 *
 * What stays as PGlite's `query` does it: one statement at a time under the same locks (outside
 * a transaction the transaction lock too, so it never runs inside someone else's), the file
 * system synced after a statement outside a transaction, NOTIFY dispatched to the listeners
 * (execProtocolStream), rows parsed with the client's parsers except the timestamp, date and
 * interval types, kept as text as drizzle configures them, and a failure thrown as drizzle's
 * DrizzleQueryError around the database's error (db/errors.ts reads its code).
 * Parameters are strings, numbers, booleans and null (db/hot/driver.ts Param), sent as text.
 */

/** Statement texts kept prepared per database; more distinct texts run unnamed (parsed each time). */
const MAX_PREPARED = 256;

/** The types drizzle's PGlite session reads as text (drizzle-orm/pglite/session.js): timestamps, dates, intervals and their arrays. */
const AS_TEXT = new Set<number>([types.TIMESTAMP, types.TIMESTAMPTZ, types.INTERVAL, types.DATE, 1231, 1115, 1185, 1187, 1182]);

type Message = { name: string; fields?: unknown[] };
type Field = { name: string; dataTypeID: number };

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The hot-statement runner of one PGlite database; `forTransaction` gives the one to use inside a transaction. */
export function pglitePrepared(client: PGlite): { root: HotStatement; forTransaction: (tx: Transaction) => HotStatement } {
  const prepared = new Map<string, string>();
  let named = 0;

  const parseValue = (value: unknown, type: number): unknown => {
    if (value === null || value === undefined) return null;
    if (AS_TEXT.has(type)) return value;
    return types.parseType(value as string, type, client.parsers);
  };

  const run = async (text: string, params: readonly (string | number | boolean | null)[], inTransaction: boolean, planEachTime = false): Promise<Record<string, unknown>[]> => {
    let name = planEachTime ? '' : prepared.get(text);
    const parse = name === undefined || name === '';
    if (name === undefined) name = named < MAX_PREPARED ? `hot_${named}` : '';
    const values = params.map((p) => (p === null || p === undefined ? null : String(p)));
    const batch = concat([
      ...(parse ? [protocol.serialize.parse({ name, text })] : []),
      protocol.serialize.bind({ statement: name, values }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    ]);
    // The whole batch runs; a failed message makes the database skip to the Sync, whose answer ends the batch.
    const messages = (await client.execProtocolStream(batch, { syncToFs: false, throwOnError: false })) as unknown as Message[];
    if (!inTransaction) await client.syncToFs();
    if (parse && name && messages.some((m) => m.name === 'parseComplete')) {
      prepared.set(text, name);
      named++;
    }
    const failure = messages.find((m) => m.name === 'error');
    if (failure) throw new DrizzleQueryError(text, [...values], failure as unknown as Error);
    let fields: Field[] = [];
    const rows: Record<string, unknown>[] = [];
    for (const m of messages) {
      if (m.name === 'rowDescription') fields = (m as unknown as { fields: Field[] }).fields;
      else if (m.name === 'dataRow') {
        const row: Record<string, unknown> = {};
        m.fields!.forEach((v, i) => (row[fields[i].name] = parseValue(v, fields[i].dataTypeID)));
        rows.push(row);
      }
    }
    return rows;
  };

  // As PGlite's `query`: outside a transaction, wait for any transaction to end, then for the statement before.
  const root: HotStatement = async (text, params, opts) => {
    await client._checkReady();
    return client._runExclusiveTransaction(() => client._runExclusiveQuery(() => run(text, params, false, opts?.planEachTime)));
  };
  const forTransaction = (tx: Transaction): HotStatement => async (text, params, opts) => {
    if (tx.closed) throw new Error('Transaction is closed');
    return client._runExclusiveQuery(() => run(text, params, true, opts?.planEachTime));
  };
  return { root, forTransaction };
}
