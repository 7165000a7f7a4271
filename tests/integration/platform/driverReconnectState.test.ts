import { afterAll, describe, expect, it } from 'vitest';
import { queryRows } from '@/db/hot/driver';
import { isDatabaseUnavailable } from '@/db/errors';
import { closeSessions, poolOfOne } from '../../helpers/postgresSessions';

/**
 * A connection that the server ends in the middle of a result (a failover's fast shutdown: FATAL
 * 57P01 to every backend) starts its next session clean (scripts/patch-postgres.mjs, docs/operations.md
 * "High availability"). postgres.js 3.4.9 kept the ended session's parse state across the
 * reconnect: its first statement was rejected with the old FATAL, and the next result began with
 * as many empty rows as the ended result had received (`[ <63 empty items>, { n: 7 } ]`), so a
 * lookup read "not found" or a row `undefined`. A pool of one, so the next statements need the
 * very connection that was ended.
 */
afterAll(closeSessions);

describe("a connection ended in the middle of a result (PostgreSQL)", () => {
  it('answers the statements after its reconnect as a new session: no stale error, no stale rows', async (ctx) => {
    const { handle, admin } = await poolOfOne(ctx);
    const pid = Number((await queryRows(handle.db, 'select pg_backend_pid() as pid', []))[0].pid);

    // 63 rows of 1 kB reach the client (past the server's 8 kB output buffer) before the 64th sleeps.
    const long = "select n, repeat('x', 1000) as pad, case when n = 64 then pg_sleep(60) end as s from generate_series(1, 64) n";
    const ended = queryRows(handle.db, long, []).then(
      () => 'answered',
      (e: unknown) => (isDatabaseUnavailable(e) ? 'unavailable' : String(e)),
    );
    await expect.poll(async () => (await admin`select count(*)::int as n from pg_stat_activity where pid = ${pid} and wait_event = 'PgSleep'`)[0].n).toBe(1);
    await new Promise((r) => setTimeout(r, 300)); // the rows read by the client
    await admin`select pg_terminate_backend(${pid})`;
    expect(await ended).toBe('unavailable');

    // The reconnected connection: its first statement answered, with its own rows only.
    expect(await queryRows(handle.db, 'select 7 as n', [])).toEqual([{ n: 7 }]);
    expect(await queryRows(handle.db, 'select 8 as n union all select 9', [])).toEqual([{ n: 8 }, { n: 9 }]);
    expect(Number((await queryRows(handle.db, 'select pg_backend_pid() as pid', []))[0].pid)).not.toBe(pid);
  }, 60_000);
});
