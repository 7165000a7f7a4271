import http from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export type Received = { headers: Record<string, string>; body: string };

/**
 * A webhook receiver on loopback: records every request; `answer(n)` decides the status of
 * the n-th request (0-based). Listens on a port of this test suite's range.
 */
export async function startReceiver(answer: (n: number, r: Received) => number = () => 200): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') };
      const status = answer(received.length, r);
      received.push(r);
      res.writeHead(status).end();
    });
  });
  for (let port = 3745; port <= 3759; port++) {
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (ok) return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise((r) => { server.close(() => r()); server.closeAllConnections(); }) };
  }
  throw new Error('no free port in 3745-3759');
}

/** The verification snippet of docs/webhooks.md, as written there. */
export function documentedVerifier(): (secret: string, headers: Record<string, string>, body: string, tolerance?: number, nowSeconds?: number) => boolean {
  const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/webhooks.md'), 'utf8');
  const m = /<!-- verify-snippet:start -->\s*```js\n([\s\S]*?)```\s*<!-- verify-snippet:end -->/.exec(doc);
  if (!m) throw new Error('docs/webhooks.md has no verification snippet');
  return new Function('require', `${m[1]}\nreturn verifyWebhook;`)(createRequire(import.meta.url));
}
