import net from 'node:net';

/**
 * A loopback TCP forwarder to `target` that can be cut (every connection closed, new ones refused)
 * and switched on again, or made to lose the answer to one COMMIT (`loseCommitAnswer`).
 */
export async function tcpSwitch(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let on = true;
  let commitLoss: { marker: Buffer; done: () => void } | null = null;
  const server = net.createServer((client) => {
    if (!on) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    // The server's side is forwarded message by message (PostgreSQL's wire protocol: a type byte
    // and a length), so that one COMMIT's answer can be held back.
    let marked = false;
    let clientTail: Buffer = Buffer.alloc(0);
    let pending: Buffer = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (!commitLoss || marked) return;
      const seen = Buffer.concat([clientTail, chunk]);
      if (seen.includes(commitLoss.marker)) marked = true;
      clientTail = seen.subarray(Math.max(0, seen.length - commitLoss.marker.length));
    });
    upstream.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      while (pending.length - at >= 5) {
        const end = at + 1 + pending.readUInt32BE(at + 1);
        if (pending.length < end) break;
        // CommandComplete 'COMMIT' of the connection that sent the marker: PostgreSQL answers it
        // once the transaction committed. Dropped, and the connection with it.
        if (marked && commitLoss && pending[at] === 0x43 && pending.toString('latin1', at + 5, end - 1) === 'COMMIT') {
          if (at) client.write(pending.subarray(0, at));
          const { done } = commitLoss;
          commitLoss = null;
          client.destroy();
          upstream.destroy();
          done();
          return;
        }
        at = end;
      }
      if (at) client.write(pending.subarray(0, at));
      pending = pending.subarray(at);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      on = false;
      for (const s of sockets) s.destroy();
    },
    restore() {
      on = true;
    },
    /**
     * The next COMMIT answered on a connection whose client sent `marker` (a value of the
     * transaction's own statements) is committed by the server, but its answer never reaches the
     * client: the connection closes right before it, as when a primary goes away between its
     * commit and the answer (or a pooler drops the client then). Resolves once that happened.
     */
    loseCommitAnswer(marker: string): Promise<void> {
      return new Promise<void>((done) => (commitLoss = { marker: Buffer.from(marker), done }));
    },
    close: () => new Promise((r) => (server.close(r), [...sockets].forEach((s) => s.destroy()))),
  };
}
