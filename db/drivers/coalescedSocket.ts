import net from 'node:net';

/**
 * The socket of a postgres.js connection, with the messages written in one go leaving in one
 * system call (docs/benchmarks.md, "Hold and confirm: server CPU").
 *
 * postgres.js gathers a connection's messages and writes them once per turn of the event loop
 * (setImmediate), except that it writes at once whenever they reach 1 KB. A claim's last
 * pipeline (the claim row, its audit row, the webhook event, the stored answer, COMMIT: see
 * runTransaction in db/hot/driver.ts) passes 1 KB, so it went out in two or three writes, each
 * waking the database's backend. Here the socket is corked from its first write until the
 * current tick's end (process.nextTick, after the promise jobs then queued), so the whole
 * pipeline leaves in one writev.
 *
 * Used through postgres.js's `socket` option (a function of its parsed options returning the
 * socket; postgres.js then starts the protocol on it at once, and node:net holds the writes
 * until connected), for a single host only: with several hosts postgres.js's own socket goes
 * through them in turn. TLS (`ssl`) wraps this socket as it wraps its own.
 */
export type ParsedOptions = { host: string[]; port: number[]; path?: string | false };

export function coalescingSocketOption(url: string): ((o: ParsedOptions) => net.Socket) | undefined {
  // A multi-host URL (`postgres://a:5432,b:5432/db`; not a WHATWG URL) is left to postgres.js.
  const authority = /^[a-z]+:\/\/(?:[^@/?]*@)?([^/?]*)/i.exec(url)?.[1] ?? '';
  if (authority.includes(',')) return undefined;
  return (o) => {
    if (o.host.length > 1) throw new Error('coalescingSocketOption: one host only');
    const socket = o.path ? net.connect(o.path) : net.connect(o.port[0], o.host[0]);
    // What postgres.js sets on its own socket (TLS reads `host` for the server name; errors name both).
    Object.assign(socket, { host: o.host[0], port: o.port[0] });
    return coalesceWrites(socket);
  };
}

/** `socket` with every write of one tick sent together (cork at the first, uncork at the tick's end). */
export function coalesceWrites<S extends net.Socket>(socket: S): S {
  const write = socket.write;
  let corked = false;
  const flush = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: S, ...args: Parameters<S['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(flush);
    }
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as S['write'];
  return socket;
}
