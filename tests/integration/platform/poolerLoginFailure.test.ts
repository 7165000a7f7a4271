import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '@/db/drivers/postgres';
import { queryRows, runTransaction } from '@/db/hot/driver';
import { isDatabaseUnavailable } from '@/db/errors';
import type { DbHandle } from '@/db/client';
import { driver } from '../../helpers/app';
import { NEEDS_POSTGRES_SESSIONS } from '../../helpers/skips';
import { tcpSwitch } from '../../helpers/tcpSwitch';

/**
 * The service's pool behind PgBouncer (transaction pooling) while PgBouncer's server logins
 * fail (docs/operations.md "High availability": what a failover looks like from the app). Between
 * PgBouncer and PostgreSQL sits a switch of this test's own: cutting it closes every server
 * connection and refuses new ones, so PgBouncer drops its clients and answers the ones that come
 * back "server login has been failing" (08P01) until the switch is on again. Transactions and
 * single statements run throughout. Every one must settle (an answer, or an error the service
 * answers 503), nothing may reject unhandled, and afterwards the whole pool must serve again:
 * before the fix, failed reservations and closed reserved connections left the pool with
 * connections that never came back, and later statements waited on them for ever.
 */
const MIGRATIONS = path.join(process.cwd(), 'db', 'migrations');
const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => fs.existsSync(p));
const NEEDS_PGBOUNCER = 'needs TEST_DATABASE_URL and the pgbouncer binary (apt-get install -y pgbouncer)';
/** Longer than any answer here takes (the pool's connect timeout is 30 s by default): an operation still pending then never settles. */
const UNANSWERED_AFTER_MS = 40_000;
const POOL = 4;

const cleanups: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as net.AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** PgBouncer in transaction pooling on a free loopback port in front of `server` (scripts/ha/ha.sh's settings). */
async function startPgbouncer(server: { port: number }, db: string, user: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pgbouncer-login-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync('chown', ['postgres', dir]);
  const ini = path.join(dir, 'pgbouncer.ini');
  fs.writeFileSync(
    ini,
    [
      '[databases]',
      `${db} = host=127.0.0.1 port=${server.port} dbname=${db} user=${user}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      'default_pool_size = 20',
      'server_reset_query =',
      'server_login_retry = 0.2',
      'server_connect_timeout = 2',
      'query_wait_timeout = 20',
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${dir}/pgbouncer.log`,
      `pidfile = ${dir}/pgbouncer.pid`,
    ].join('\n') + '\n',
  );
  const [cmd, args] = asRoot ? ['runuser', ['-u', 'postgres', '--', PGBOUNCER!, ini]] : [PGBOUNCER!, [ini]];
  const child = spawn(cmd, args, { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((r) => net.connect(port, '127.0.0.1').on('connect', function (this: net.Socket) { this.destroy(); r(true); }).on('error', () => r(false)));
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    stop: async () => {
      const pid = Number(fs.readFileSync(`${dir}/pgbouncer.pid`, 'utf8'));
      process.kill(pid);
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Outcome = 'answered' | 'unavailable' | 'other' | 'unanswered';

/** How an operation ended: answered, failed with an error the service answers 503, failed otherwise, or still pending after UNANSWERED_AFTER_MS. */
function settle(op: Promise<unknown>, others: unknown[]): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const pending = new Promise<Outcome>((r) => (timer = setTimeout(() => r('unanswered'), UNANSWERED_AFTER_MS)));
  const done = op.then(
    (): Outcome => 'answered',
    (err): Outcome => (isDatabaseUnavailable(err) ? 'unavailable' : (others.push(err), 'other')),
  );
  return Promise.race([done, pending]).finally(() => clearTimeout(timer));
}

/** A claim's shape: a pipelined transaction with a deferred-free read and a write-shaped statement, then a single statement. */
const transaction = (db: DbHandle['db'], i: number) =>
  runTransaction(db, async (tx) => {
    await queryRows(tx, 'select $1::int as n', [i]);
    await queryRows(tx, 'select pg_sleep(0.005), $1::text as t', [`op${i}`]);
    return i;
  });

describe('PgBouncer failing its server logins (PostgreSQL)', () => {
  it('every operation settles, nothing rejects unhandled, and the whole pool serves again after', async (ctx) => {
    const url = process.env.DATABASE_URL;
    if ((await driver()) !== 'postgres' || !url) ctx.skip(NEEDS_POSTGRES_SESSIONS);
    if (!PGBOUNCER) ctx.skip(NEEDS_PGBOUNCER);
    const direct = new URL(process.env.DATABASE_DIRECT_URL || url!);
    const db = direct.pathname.slice(1);
    const user = decodeURIComponent(direct.username || 'postgres');

    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(() => process.off('unhandledRejection', onUnhandled));

    const sw = await tcpSwitch({ host: direct.hostname || '127.0.0.1', port: Number(direct.port || 5432) });
    cleanups.push(sw.close);
    const bouncer = await startPgbouncer(sw, db, user);
    cleanups.push(bouncer.stop);
    const pooled = `postgres://${encodeURIComponent(user)}@127.0.0.1:${bouncer.port}/${db}`;
    const handle = await openPostgres(pooled, POOL, MIGRATIONS, { prepare: false, directUrl: direct.toString() });
    cleanups.push(() => handle.close());

    const others: unknown[] = [];
    const outcomes: Promise<Outcome>[] = [];
    let running = true;
    let n = 0;
    const worker = async () => {
      while (running) {
        const i = n++;
        const op = i % 3 === 2 ? queryRows(handle.db, 'select $1::int as n', [i]) : transaction(handle.db, i);
        const outcome = settle(op, others);
        outcomes.push(outcome);
        // Pace by the answers, but not by one that never comes.
        await Promise.race([outcome, new Promise((r) => setTimeout(r, 50))]);
      }
    };
    const workers = Array.from({ length: POOL * 3 }, worker);

    // Three outages: server connections closed, logins refused for a while, then back.
    for (let round = 0; round < 3; round++) {
      await new Promise((r) => setTimeout(r, 400));
      sw.cut();
      await new Promise((r) => setTimeout(r, 1_500));
      sw.restore();
    }
    await new Promise((r) => setTimeout(r, 1_000));
    running = false;
    await Promise.all(workers);
    const results = await Promise.all(outcomes);
    const count = (o: Outcome) => results.filter((r) => r === o).length;

    expect(count('unanswered'), `of ${results.length} operations`).toBe(0);
    expect(others.map(String)).toEqual([]);
    expect(count('unavailable')).toBeGreaterThan(0); // the outages did reach the pool
    expect(unhandled.map(String)).toEqual([]);

    // Afterwards every connection of the pool serves: twice the pool's size of transactions at once.
    const after = await Promise.all(Array.from({ length: POOL * 2 }, (_, i) => settle(transaction(handle.db, i), others)));
    expect(after).toEqual(Array(POOL * 2).fill('answered'));
  }, 180_000);
});
