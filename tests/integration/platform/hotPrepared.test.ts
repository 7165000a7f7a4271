import { describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { queryRows } from '@/db/hot/driver';
import { pgErrorInfo, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { newId } from '@/server/domain/ids';

/**
 * db/hot statements run prepared on both databases (db/hot/driver.ts; on PGlite
 * db/drivers/pglitePrepared.ts: named on first use, then only bound and executed): parameters
 * and rows come back as each driver gives them, a failure carries the database's code and leaves
 * the statement usable, a statement that never parsed is not taken for prepared, and
 * planEachTime answers the same rows.
 */
const ROUND_TRIP = `select $1::boolean as b, $2::int as i, $3::text as t, $4::timestamptz as ts, $5::jsonb as j, $6::text as n, $7::float8 as f`;

describe('hot statements, prepared', () => {
  it('parameters and rows round-trip the same on every execution (timestamps as text, jsonb parsed)', async () => {
    const db = await getDb();
    const at = '2031-05-06T07:08:09.123Z';
    for (let i = 0; i < 8; i++) {
      const [row] = await queryRows(db, ROUND_TRIP, [i % 2 === 0, i, `x'${i}"`, at, JSON.stringify({ a: [i, null], s: 'é' }), null, 0.5], { planEachTime: i % 3 === 0 });
      expect(row).toMatchObject({ b: i % 2 === 0, i, t: `x'${i}"`, j: { a: [i, null], s: 'é' }, n: null, f: 0.5 });
      expect(new Date(String(row.ts)).toISOString()).toBe(at);
      expect(typeof row.ts).toBe('string');
    }
  });

  it('a failed execution throws with the database code and the statement still runs afterwards, in and out of a transaction', async () => {
    const db = await getDb();
    const name = `hot-prepared-${newId()}`;
    // A table of this test's own (files share the database; a temporary table would live with one pooled session), dropped at the end.
    const table = `hot_prepared_${newId().replace(/-/g, '')}`;
    await db.execute(`create table "${table}" (k text primary key, v int not null)` as never);
    try {
      const insert = `insert into "${table}" (k, v) values ($1, $2) returning v`;
      expect(await queryRows(db, insert, [name, 1])).toEqual([{ v: 1 }]);
      const dup = await queryRows(db, insert, [name, 2]).catch((e: unknown) => e);
      expect(pgErrorInfo(dup).code).toBe(PG_UNIQUE_VIOLATION);
      expect(await queryRows(db, insert, [`${name}-b`, 3])).toEqual([{ v: 3 }]);
      // Inside a transaction: the failure aborts it (rolled back whole), and the statement runs in the next one.
      const failed = await db
        .transaction(async (tx) => {
          await queryRows(tx, insert, [`${name}-c`, 4]);
          await queryRows(tx, insert, [name, 5]);
        })
        .catch((e: unknown) => e);
      expect(pgErrorInfo(failed).code).toBe(PG_UNIQUE_VIOLATION);
      await db.transaction(async (tx) => {
        expect(await queryRows(tx, insert, [`${name}-d`, 6])).toEqual([{ v: 6 }]);
      });
      const rows = await queryRows(db, `select k, v from "${table}" where k like $1 order by v`, [`${name}%`]);
      expect(rows).toEqual([
        { k: name, v: 1 },
        { k: `${name}-b`, v: 3 },
        { k: `${name}-d`, v: 6 },
      ]);
    } finally {
      await db.execute(`drop table if exists "${table}"` as never);
    }
  });

  it('a statement that does not parse fails each time with its error (it is never taken for prepared)', async () => {
    const db = await getDb();
    const broken = `select $1::int as v from "no_such_table_${newId().replace(/-/g, '')}"`;
    for (let i = 0; i < 2; i++) expect(pgErrorInfo(await queryRows(db, broken, [1]).catch((e: unknown) => e)).code).toBe('42P01');
    expect(await queryRows(db, `select $1::int as v`, [7])).toEqual([{ v: 7 }]);
  });
});
