import { describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { epochMs } from '@/db/hot/columns';
import { queryRows } from '@/db/hot/driver';

/**
 * db/hot/columns.ts epochMs: the float8 date_part form reads every instant as the numeric
 * `(extract(epoch from x) * 1000)::float8` did, bit for bit, sub-millisecond instants included
 * (the columns.ts comment gives the range: 1833 to 2106).
 */
describe('epochMs', () => {
  it('equals the numeric extract for random microsecond instants from 1900 to 2100, and for null', async () => {
    const db = await getDb();
    const text = `with t(x) as (
        select timestamptz '1900-01-01 00:00:00+00' + make_interval(secs => floor(random() * 6.3e9)) + (floor(random() * 1e6)::int * interval '1 microsecond')
        from generate_series(1, 20000)
        union all values (timestamptz '2027-03-01 08:15:00+00'), (timestamptz '1969-12-31 23:59:59.999999+00'), (timestamptz '2026-11-26 18:30:19.123456+00'), (null)
      )
      select count(*)::int as n, count(*) filter (where ${epochMs('x')} is not distinct from (extract(epoch from x) * 1000)::float8)::int as same from t`;
    const [row] = await queryRows(db, text, []);
    expect(row.n).toBe(20004);
    expect(row.same).toBe(row.n);
  });

  it('reads as the instant JavaScript parses, at millisecond precision', async () => {
    const db = await getDb();
    const instants = ['2027-03-01T08:15:00.000Z', '2026-11-26T18:30:19.123Z', '1999-12-31T23:59:59.999Z'];
    for (const iso of instants) {
      const [row] = await queryRows(db, `select ${epochMs('$1::timestamptz')} as ms`, [iso]);
      expect(row.ms).toBe(Date.parse(iso));
    }
  });
});
