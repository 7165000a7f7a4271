import { afterAll, beforeAll } from 'vitest';

/**
 * The outbound guard (docs/reliability.md "Outbound requests") refuses loopback unless
 * OUTBOUND_ALLOW_PRIVATE is on, and it is off by default outside `npm run dev`. A test file
 * whose fakes (Radicale, the Google and Microsoft fakes, webhook receivers) listen on loopback
 * turns it on for its own run with this; the guard's own tests run with it off.
 */
export function allowLoopbackOutbound(): void {
  let saved: string | undefined;
  beforeAll(() => {
    saved = process.env.OUTBOUND_ALLOW_PRIVATE;
    process.env.OUTBOUND_ALLOW_PRIVATE = '1';
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.OUTBOUND_ALLOW_PRIVATE;
    else process.env.OUTBOUND_ALLOW_PRIVATE = saved;
  });
}

/** Run `fn` with the setting at `value` (`undefined`: unset), restoring it afterwards. */
export async function withOutboundSetting<T>(value: string | undefined, fn: () => Promise<T>, name = 'OUTBOUND_ALLOW_PRIVATE'): Promise<T> {
  const saved = { OUTBOUND_ALLOW_PRIVATE: process.env.OUTBOUND_ALLOW_PRIVATE, WEBHOOKS_ALLOW_PRIVATE: process.env.WEBHOOKS_ALLOW_PRIVATE };
  delete process.env.OUTBOUND_ALLOW_PRIVATE;
  delete process.env.WEBHOOKS_ALLOW_PRIVATE;
  if (value !== undefined) process.env[name] = value;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/**
 * A listener on 127.0.0.1 and ::1 (the same port when ::1 is available) that counts every
 * connection it is offered: a refused request must leave `connections()` at 0. It answers
 * 200 to any request that does arrive, so an allowed request reaches it.
 */
export async function connectionCounter(): Promise<{ port: number; connections(): number; close(): Promise<void> }> {
  const net = await import('node:net');
  let count = 0;
  const onConn = (socket: import('node:net').Socket) => {
    count++;
    socket.on('error', () => {});
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
  };
  const v4 = net.createServer(onConn);
  await new Promise<void>((resolve) => v4.listen(0, '127.0.0.1', resolve));
  const port = (v4.address() as import('node:net').AddressInfo).port;
  const v6 = net.createServer(onConn);
  const v6ok = await new Promise<boolean>((resolve) => {
    v6.once('error', () => resolve(false));
    v6.listen(port, '::1', () => resolve(true));
  });
  const closeOne = (s: import('node:net').Server) => new Promise<void>((r) => s.close(() => r()));
  return { port, connections: () => count, close: async () => { await closeOne(v4); if (v6ok) await closeOne(v6); } };
}
