import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdmission } from '../../../scripts/admission.mjs';

/**
 * The admission limit of scripts/serve.mjs (docs/operations.md "Admission limit"): at most
 * `limit` requests run at once, the rest wait in arrival order, a slot frees when its response
 * closes (answered or dropped), and a waiting request whose client left is never run.
 */
type Held = { id: string; res: http.ServerResponse };

function server(limit: number) {
  const admission = createAdmission(limit);
  const running: Held[] = [];
  const started: string[] = [];
  const srv = http.createServer((req, res) => {
    admission.admit(req, res, () => {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '?';
      started.push(id);
      running.push({ id, res });
    });
  });
  return { srv, admission, running, started };
}

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function listen(s: http.Server): Promise<number> {
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

function get(port: number, id: string, agent: http.Agent): { done: Promise<string>; req: http.ClientRequest } {
  let req!: http.ClientRequest;
  const done = new Promise<string>((resolve, reject) => {
    req = http.get({ host: '127.0.0.1', port, path: `/?id=${id}`, agent }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve(body));
    });
    req.on('error', reject);
  });
  return { done, req };
}

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

describe('admission limit', () => {
  it('runs at most `limit` requests at once and the waiting ones in arrival order', async () => {
    const { srv, admission, running, started } = server(2);
    const port = await listen(srv);
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const calls: Promise<string>[] = [];
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      calls.push(get(port, id, agent).done);
      await until(() => admission.stats().active + admission.stats().waiting === calls.length);
    }
    expect(started).toEqual(['a', 'b']);
    expect(admission.stats()).toEqual({ active: 2, waiting: 3 });
    running.shift()!.res.end('a');
    await until(() => started.length === 3);
    expect(started).toEqual(['a', 'b', 'c']);
    for (let n = 0; n < 4; n++) {
      await until(() => running.length > 0);
      const h = running.shift()!;
      h.res.end(h.id);
    }
    expect(await Promise.all(calls)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(started).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(admission.stats()).toEqual({ active: 0, waiting: 0 });
    agent.destroy();
  });

  it('frees the slot of a request whose client left, and skips a waiting request whose client left', async () => {
    const { srv, admission, running, started } = server(1);
    const port = await listen(srv);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const a = get(port, 'a', agent);
    a.done.catch(() => {});
    await until(() => started.length === 1);
    const b = get(port, 'b', agent);
    b.done.catch(() => {});
    const c = get(port, 'c', agent);
    await until(() => admission.stats().waiting === 2);
    b.req.destroy(); // b leaves while waiting
    await new Promise((r) => setTimeout(r, 50));
    a.req.destroy(); // a leaves while running: its slot frees, b is skipped, c runs
    await until(() => started.length === 2);
    expect(started).toEqual(['a', 'c']);
    running.find((h) => h.id === 'c')!.res.end('c');
    expect(await c.done).toBe('c');
    await until(() => admission.stats().active === 0);
    expect(admission.stats()).toEqual({ active: 0, waiting: 0 });
  });

  it('with limit 0 runs everything at once', async () => {
    const { srv, admission, started, running } = server(0);
    const port = await listen(srv);
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const calls = ['a', 'b', 'c'].map((id) => get(port, id, agent).done);
    await until(() => started.length === 3);
    expect(admission.stats()).toEqual({ active: 0, waiting: 0 });
    for (const h of running) h.res.end(h.id);
    expect((await Promise.all(calls)).sort()).toEqual(['a', 'b', 'c']);
    agent.destroy();
  });
});
