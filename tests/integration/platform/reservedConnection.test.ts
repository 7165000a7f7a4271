import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '@/db/drivers/postgres';
import { queryRows, runTransaction } from '@/db/hot/driver';
import { isDatabaseUnavailable } from '@/db/errors';
import { adminConnection, closeSessions, directUrl, keptHandle, MIGRATIONS, poolOfOne } from '../../helpers/postgresSessions';
import { tcpSwitch } from '../../helpers/tcpSwitch';

/**
 * A transaction's own connection closing under it (db/drivers/reservedConnection.ts): each case
 * left a request waiting for ever on postgres.js 3.4.9 before, and the pool short of a connection.
 * A pool of one connection, so the next statement needs the very connection that closed.
 */
const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  await closeSessions();
  for (const c of cleanups) await c();
});

const pidOf = async (db: Parameters<typeof queryRows>[0]) => Number((await queryRows(db, 'select pg_backend_pid() as pid', []))[0].pid);

describe('a transaction whose connection closes (PostgreSQL)', () => {
  it('fails when its connection closed under it, whatever the callback throws, and the pool serves again', async (ctx) => {
    const { handle, admin } = await poolOfOne(ctx);
    const before = await pidOf(handle.db);
    // The transaction's session is ended by the server while the callback works (a failover),
    // and the callback then fails with an error of its own, as a domain maps a failure: no
    // ROLLBACK may be written to the closed connection, and it may not go back to the pool open.
    const failed = await runTransaction(handle.db, async (tx) => {
      const pid = await pidOf(tx);
      await admin`select pg_terminate_backend(${pid})`;
      await expect.poll(async () => (await admin`select count(*)::int as n from pg_stat_activity where pid = ${pid}`)[0].n).toBe(0);
      throw new Error('the request failed after its connection was lost');
    }).then(
      () => 'committed',
      (e: unknown) => (isDatabaseUnavailable(e) ? 'unavailable' : String(e)),
    );
    // The lost connection (503) or the callback's own error, whichever the driver saw first.
    expect(['unavailable', 'Error: the request failed after its connection was lost']).toContain(failed);

    // The one connection of the pool reconnects for the next statement and transaction.
    expect(await pidOf(handle.db)).not.toBe(before);
    expect(await runTransaction(handle.db, async (tx) => (await queryRows(tx, 'select 2 as n', []))[0].n)).toBe(2);
  }, 60_000);

  it('a transaction waiting for a connection that closes and reconnects is answered, and the pool serves again', async (ctx) => {
    const url = await directUrl(ctx);
    // Through a switch of the test's own, so that the connection closes without a word from the
    // server (a pooler or a proxy dropping it), as in a failover.
    const target = new URL(url);
    const sw = await tcpSwitch({ host: target.hostname || '127.0.0.1', port: Number(target.port || 5432) });
    cleanups.push(sw.close);
    const switched = new URL(url!);
    switched.hostname = '127.0.0.1';
    switched.port = String(sw.port);
    const handle = keptHandle(await openPostgres(switched.toString(), 1, MIGRATIONS, { directUrl: url }));

    // The pool's one connection busy with a long statement; a transaction queued for it.
    const busy = queryRows(handle.db, 'select pg_sleep(60)', []).catch((e: unknown) => e);
    const admin = adminConnection(url);
    await expect.poll(async () => (await admin`select count(*)::int as n from pg_stat_activity where query = 'select pg_sleep(60)'`)[0].n).toBe(1);
    const waiting = runTransaction(handle.db, async (tx) => (await queryRows(tx, 'select 3 as n', []))[0].n).then(
      (n) => ({ n }),
      (e: unknown) => ({ unavailable: isDatabaseUnavailable(e) }),
    );
    await new Promise((r) => setImmediate(r));
    // The busy connection closes; postgres.js reconnects it for the queued reservation, then
    // drops that reservation (porsager/postgres#1195). The transaction must still settle: on that
    // connection, or as the database being unavailable (503, a client retries).
    sw.cut();
    sw.restore();
    expect(isDatabaseUnavailable(await busy)).toBe(true);
    expect([{ n: 3 }, { unavailable: true }]).toContainEqual(await waiting);
    expect(await runTransaction(handle.db, async (tx) => (await queryRows(tx, 'select 4 as n', []))[0].n)).toBe(4);
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where query = 'select pg_sleep(60)'`;
  }, 60_000);
});
