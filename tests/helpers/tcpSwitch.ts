import net from 'node:net';

/** A loopback TCP forwarder to `target` that can be cut (every connection closed, new ones refused) and switched on again. */
export async function tcpSwitch(target: { host: string; port: number }) {
  const sockets = new Set<net.Socket>();
  let on = true;
  const server = net.createServer((client) => {
    if (!on) return void client.destroy();
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
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
    close: () => new Promise((r) => (server.close(r), [...sockets].forEach((s) => s.destroy()))),
  };
}
