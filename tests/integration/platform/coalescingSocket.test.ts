import fs from 'node:fs';
import net from 'node:net';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { coalescingSocket, type SocketTarget } from '@/db/drivers/coalescingSocket';
import { driver } from '../../helpers/app';
import { NEEDS_POSTGRES_SOCKET } from '../../helpers/skips';

/**
 * The service's PostgreSQL sockets (db/drivers/coalescingSocket.ts; docs/architecture.md "Data",
 * "One write per round trip"): what postgres.js sends in one turn of the event loop leaves in
 * one write, and connecting, failing and reconnecting behave as with the driver's own socket.
 * Writes are counted where the stream hands its data to the handle (one system call each).
 */
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** postgres.js's options; `socket` (its documented custom socket) is absent from its typings. */
type Options = postgres.Options<Record<string, postgres.PostgresType>>;

type Counter = { writes: number; trips: number; answered: boolean };

/** Count `socket`'s writes to its handle, and its round trips (a write after the server last answered). */
function counted(socket: net.Socket, c: Counter): net.Socket {
  const s = socket as net.Socket & { _write: (...a: unknown[]) => void; _writev?: (...a: unknown[]) => void };
  const one = s._write.bind(s);
  const many = s._writev?.bind(s);
  const hit = () => {
    c.writes++;
    if (c.answered) c.trips++;
    c.answered = false;
  };
  s._write = (...a: unknown[]) => (hit(), one(...a));
  if (many) s._writev = (...a: unknown[]) => (hit(), many(...a));
  socket.on('data', () => (c.answered = true));
  return socket;
}

function client(url: string, socket: (t: SocketTarget) => net.Socket, extra: Record<string, unknown> = {}) {
  const sql = postgres(url, { max: 1, onnotice: () => {}, socket, ...extra } as Options);
  closers.push(() => sql.end({ timeout: 5 }));
  return sql;
}

/** The test database's URL on PostgreSQL over TCP; on PGlite the test is skipped. */
async function pgUrl(ctx: { skip: (note?: string) => never }): Promise<string> {
  const url = process.env.DATABASE_URL;
  if ((await driver()) !== 'postgres' || !url || !new URL(url).hostname) ctx.skip(NEEDS_POSTGRES_SOCKET);
  return url!;
}

/**
 * A transaction whose last pipeline is over the driver's 1,024 bytes: two statements of 1,100
 * bytes each, started and not awaited, so COMMIT follows them in the same turn (as
 * db/hot/driver.ts's `defer` sends a claim's writes).
 */
async function bigPipeline(sql: postgres.Sql, c: Counter): Promise<{ writes: number; trips: number }> {
  await sql`select 1`; // connected and its start-up done
  c.writes = 0;
  c.trips = 0;
  const pad = 'x'.repeat(1100);
  const started: Promise<unknown>[] = [];
  await sql.begin(async (tx) => {
    await tx`select 1 as a`;
    for (const text of [pad, pad + 'y']) started.push(new Promise((resolve, reject) => tx`select ${text}::text as b`.then(resolve, reject)));
  });
  expect(((await started[1]) as { b: string }[])[0].b).toHaveLength(1101);
  return { writes: c.writes, trips: c.trips };
}

describe('coalescing socket', () => {
  it('sends a transaction in one write per round trip, where the driver alone needs more', async (ctx) => {
    const url = await pgUrl(ctx);
    const plain: Counter = { writes: 0, trips: 0, answered: true };
    const coalesced: Counter = { writes: 0, trips: 0, answered: true };
    const driverOwn = client(url, (t) => counted(net.connect(t.port[0], t.host[0]), plain));
    const ours = client(url, (t) => counted(coalescingSocket(t), coalesced));

    // Twice: the first run also prepares the statements (a round trip each).
    await bigPipeline(driverOwn, plain);
    await bigPipeline(ours, coalesced);
    const before = await bigPipeline(driverOwn, plain);
    const after = await bigPipeline(ours, coalesced);
    // BEGIN, the first statement, then the two statements with COMMIT: one write each.
    expect(after).toEqual({ writes: 3, trips: 3 });
    expect(before.trips).toBe(3);
    // The driver alone: the last round trip in three (each statement over 1,024 bytes goes at
    // once, then COMMIT on the driver's immediate).
    expect(before.writes).toBe(5);
  });

  it('answers every query of a busy pool correctly (pipelined on one connection)', async (ctx) => {
    const url = await pgUrl(ctx);
    const c: Counter = { writes: 0, trips: 0, answered: true };
    const sql = client(url, (t) => counted(coalescingSocket(t), c));
    const got = await Promise.all(Array.from({ length: 200 }, (_, i) => sql`select ${i}::int as i, ${'z'.repeat(i * 7)}::text as pad`));
    expect(got.map((r) => r[0].i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(got[199][0].pad).toHaveLength(199 * 7);
    expect(c.writes).toBeLessThan(200);
  });

  it('a connection the server ends is replaced on the next query', async (ctx) => {
    const url = await pgUrl(ctx);
    const sql = client(url, coalescingSocket);
    const [{ pid }] = await sql`select pg_backend_pid() as pid`;
    const admin = client(url, coalescingSocket);
    await admin`select pg_terminate_backend(${pid})`;
    await new Promise((r) => setTimeout(r, 100));
    const again = await sql`select pg_backend_pid() as pid`.catch(() => sql`select pg_backend_pid() as pid`);
    expect(again[0].pid).not.toBe(pid);
  });

  it('a refused connection fails as it does with the driver’s own socket', async () => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as net.AddressInfo).port;
    await new Promise((r) => server.close(r));
    const closed = new URL(`postgres://postgres@127.0.0.1:${port}/none`);
    const refused = async (sql: postgres.Sql) => {
      try {
        await sql`select 1`;
        return 'connected';
      } catch (err) {
        return (err as NodeJS.ErrnoException).code;
      } finally {
        await sql.end({ timeout: 1 });
      }
    };
    const own = postgres(closed.toString(), { max: 1, connect_timeout: 5 });
    const ours = postgres(closed.toString(), { max: 1, connect_timeout: 5, socket: coalescingSocket } as Options);
    const [a, b] = [await refused(ours), await refused(own)];
    expect(a).toBe('ECONNREFUSED');
    expect(a).toBe(b);
  });

  it('connects over a Unix socket path', async (ctx) => {
    const url = await pgUrl(ctx);
    const dir = '/var/run/postgresql';
    if (!fs.existsSync(`${dir}/.s.PGSQL.5432`)) ctx.skip(`needs PostgreSQL's Unix socket in ${dir}`);
    const u = new URL(url);
    const options = { host: dir, port: 5432, database: u.pathname.slice(1), username: u.username || 'postgres', max: 1, socket: coalescingSocket };
    const sql = postgres(options as Options);
    closers.push(() => sql.end({ timeout: 5 }));
    const [{ ok }] = await sql`select 1 as ok`;
    expect(ok).toBe(1);
  });
});

describe('coalescing socket, several hosts', () => {
  it('each connection attempt takes the next host and port, as the driver does', async () => {
    const seen: number[] = [];
    const servers = await Promise.all(
      [0, 1].map(async (n) => {
        const s = net.createServer((conn) => {
          seen.push(n);
          conn.destroy();
        });
        s.listen(0, '127.0.0.1');
        await once(s, 'listening');
        return s;
      }),
    );
    const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
    const target: SocketTarget = { host: ['127.0.0.1', '127.0.0.1'], port: ports };
    for (let i = 0; i < 3; i++) {
      const socket = coalescingSocket(target);
      socket.on('error', () => {});
      await once(socket, 'close');
    }
    expect(seen).toEqual([0, 1, 0]);
    const fourth = coalescingSocket(target);
    fourth.on('error', () => {});
    expect(fourth).toMatchObject({ host: '127.0.0.1', port: ports[1] });
    await once(fourth, 'close');
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  });
});

describe('coalescing socket, when it holds writes back', () => {
  it('holds only a write of 1,024 bytes or more, and sends a smaller one at once, even from an immediate', async () => {
    const received: number[] = [];
    const server = net.createServer((conn) => conn.on('data', (d) => received.push(d.length)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as net.AddressInfo).port;
    const socket = coalescingSocket({ host: ['127.0.0.1'], port: [port] });
    await once(socket, 'connect');

    // The driver's small flush runs in its own immediate: held back there, it would wait for the
    // next loop iteration. It goes straight to the kernel instead.
    const small = await new Promise<number>((resolve) => setImmediate(() => (socket.write(Buffer.alloc(100)), resolve(socket.writableLength))));
    expect(small).toBe(0);

    // A write the driver makes at once, and the rest of the turn behind it: held, then sent together.
    const held = await new Promise<number>((resolve) => {
      socket.write(Buffer.alloc(1500));
      socket.write(Buffer.alloc(1200));
      const pending = socket.writableLength;
      setImmediate(() => socket.write(Buffer.alloc(12))); // as the driver's own immediate would
      setImmediate(() => setImmediate(() => resolve(pending)));
    });
    expect(held).toBe(2700);
    expect(socket.writableLength).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    expect(received.reduce((a, b) => a + b, 0)).toBe(100 + 2712);
    socket.destroy();
    await new Promise((r) => server.close(r));
  });
});
