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
 * a system call here and a wake-up of the PostgreSQL backend. This socket is corked from its
 * first write until an immediate queued after the driver's own (a tick later), so everything
 * the driver sends in one turn of the event loop goes out in one write; nothing waits longer
 * than the driver's own small writes already do.
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

/** `socket` with every write of one event-loop turn sent as one (see coalescingSocket). */
export function coalesceWrites(socket: net.Socket): net.Socket {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  // process.nextTick first: the driver queues its own immediate for small writes during the
  // same turn, and this one must run after it to carry those writes too.
  const later = () => setImmediate(uncork);
  socket.write = function (this: net.Socket, ...args: Parameters<net.Socket['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(later);
    }
    return write.apply(this, args);
  } as net.Socket['write'];
  return socket;
}
