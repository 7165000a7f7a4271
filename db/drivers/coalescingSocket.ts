import net from 'node:net';

/**
 * The connection options postgres.js hands its `socket` option (parsed from the URL and
 * environment): one or more hosts and ports, or the Unix socket path.
 */
export type SocketTarget = { host: string[]; port: number[]; path?: string | false };

/**
 * A socket for postgres.js's `socket` option that sends a connection's messages in as few
 * writes as possible (docs/architecture.md "Data", "One write per round trip").
 *
 * postgres.js writes a connection's queued messages at once when they reach 1,024 bytes,
 * otherwise on the next `setImmediate`. A transaction's last pipeline (a confirm's promotion,
 * booking, audit row, stored answer and COMMIT: about 2.4 kB) so left in three writes, each
 * a system call here and a wake-up of the PostgreSQL backend. Here a write the driver makes at
 * once corks the socket until an immediate queued after the driver's own, so the rest of that
 * turn's messages go out with it in one write; smaller writes go out as they come, so nothing
 * waits longer than the driver's own small writes already do (see coalesceWrites).
 *
 * The socket is returned before it connects, as the driver's own is: writes queue until it
 * connects, and connection errors, the connect timeout and reconnects stay the driver's. Over
 * TLS the driver writes through the TLS socket it wraps around this one, so nothing is merged.
 */
export function coalescingSocket(target: SocketTarget): net.Socket {
  if (target.path) return coalesceWrites(net.connect(target.path));
  // Several hosts: each connection attempt takes the next, as the driver's own sockets do.
  const i = (nextHost.get(target) ?? 0) % target.host.length;
  nextHost.set(target, i + 1);
  const host = target.host[i];
  const port = target.port[i] ?? target.port[0];
  // The driver's own socket carries these (TLS's servername and its error messages read them).
  return coalesceWrites(Object.assign(net.connect(port, host), { host, port }));
}

const nextHost = new WeakMap<SocketTarget, number>();

/** postgres.js writes a connection's queue at once from this size on, otherwise from its own immediate. */
const DRIVER_FLUSH_BYTES = 1024;

/**
 * `socket` with every write of one event-loop turn sent as one (see coalescingSocket). Only a
 * write the driver makes at once (its queue reached 1,024 bytes) corks the socket: the rest of
 * that turn's messages follow from the driver's immediate, and the uncork is queued behind it.
 * A smaller write is that immediate itself, or follows no earlier write: it goes out as is,
 * never a loop iteration later (an immediate queued while immediates run waits for the next
 * iteration, behind every other callback ready then).
 */
function coalesceWrites(socket: net.Socket): net.Socket {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  // process.nextTick first: the driver queues its own immediate for the small rest during the
  // same turn, and this one must run after it to carry that rest too.
  const later = () => setImmediate(uncork);
  socket.write = function (this: net.Socket, ...args: Parameters<net.Socket['write']>) {
    const [chunk, second, third] = args;
    const callback = typeof second === 'function' || typeof third === 'function';
    if (!corked && !callback && typeof chunk !== 'string' && chunk.length >= DRIVER_FLUSH_BYTES) {
      corked = true;
      socket.cork();
      process.nextTick(later);
    }
    return write.apply(this, args);
  } as net.Socket['write'];
  return socket;
}
