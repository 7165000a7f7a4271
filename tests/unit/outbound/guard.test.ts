import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getConfig } from '@/server/config';
import { refusedRange } from '@/server/domain/outbound/addresses';
import { checkOutboundUrl, outboundFetch, OutboundRefusedError, type Resolver } from '@/server/domain/outbound/guard';
import { connectionCounter } from '../../helpers/outbound';

/**
 * The outbound guard (docs/reliability.md "Outbound requests"): every spelling of a refused
 * address is refused before any connection, names resolve once and the connection uses the
 * checked answer, redirects are re-checked, and the refusal does not depend on the port.
 * Only loopback is ever connected to; host names resolve through stubs.
 */

/** A resolver that must not be asked (IP literals are judged without DNS). */
const noDns: Resolver = async (host) => {
  throw new Error(`unexpected DNS lookup of ${host}`);
};

describe('address ranges', () => {
  it.each([
    // IPv4
    '0.0.0.0', '0.1.2.3', '10.0.0.1', '100.64.0.1', '100.127.255.254', '127.0.0.1', '127.255.255.255', '169.254.169.254',
    '172.16.0.1', '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.88.99.1', '192.168.1.1', '198.18.0.1', '198.19.255.255',
    '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    // IPv6 proper
    '::', '::1', 'fe80::1', 'fe80::1%lo', 'febf::1', 'fc00::1', 'fd12:3456::1', 'ff02::1', 'ff05::2', 'fec0::1', '100::1',
    '2001:db8::1', '3fff::1', '5f00::1', '4000::1',
    // IPv4 inside IPv6
    '::127.0.0.1', '::7f00:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:0:127.0.0.1',
    '::ffff:0:8.8.8.8', '64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b:1::1', '2002:7f00:1::1', '2002:a00:1::', '2002:c0a8:101::1',
    // Teredo and the rest of 2001::/23 (benchmarking 2001:2::/48, ORCHID)
    '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:2::1', '2001:10::1', '2001:1ff::1',
    // not an address
    'localhost', '',
  ])('%s is refused', (address) => expect(refusedRange(address)).not.toBeNull());

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '100.63.255.255', '100.128.0.0', '172.32.0.1', '192.169.0.1', '198.20.0.1', '223.255.255.255',
    '2606:4700:4700::1111', '2a00:1450:4001::1', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2001:200::1'])(
    '%s is public',
    (address) => expect(refusedRange(address)).toBeNull(),
  );
});

// Every spelling of a refused target, as a URL (item: CalDAV and webhook SSRF).
const LOOPBACK_SPELLINGS = [
  '127.0.0.1', '2130706433', '0177.0.0.1', '0x7f000001', '0x7f.0.0.1', '127.1', '127.0.1', '017700000001', '0.0.0.0', '0',
  '[::1]', '[0:0:0:0:0:0:0:1]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]',
  '[2002:7f00:1::1]', '[64:ff9b::127.0.0.1]', '[::]', '[fe80::1]', '[2001::1]',
];

describe('URL spellings, refused without DNS and without connecting', () => {
  it.each(LOOPBACK_SPELLINGS)('http://%s/ is refused (PRIVATE_ADDRESS), naming the setting', async (host) => {
    const err = await checkOutboundUrl(`http://${host}:8080/x`, { allowPrivate: false, resolve: noDns }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefusedError);
    expect((err as OutboundRefusedError).reason).toBe('PRIVATE_ADDRESS');
    expect((err as OutboundRefusedError).message).toContain('OUTBOUND_ALLOW_PRIVATE=1');
  });

  it('a host name is judged by every address it resolves to (a hosts-file name, a mixed answer)', async () => {
    const hosts: Record<string, string[]> = { 'calendar.intranet': ['127.0.0.1'], 'mixed.example': ['93.184.215.14', '10.0.0.5'], 'v6.intranet': ['fd00::5'] };
    const resolve: Resolver = async (h) => (hosts[h] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    for (const h of Object.keys(hosts)) await expect(checkOutboundUrl(`https://${h}/`, { allowPrivate: false, resolve })).rejects.toMatchObject({ reason: 'PRIVATE_ADDRESS' });
    await expect(checkOutboundUrl('https://nowhere.invalid/', { allowPrivate: false, resolve })).rejects.toMatchObject({ reason: 'UNRESOLVABLE_HOST' });
    await expect(checkOutboundUrl('https://public.example/', { allowPrivate: false, resolve: async () => [{ address: '93.184.215.14', family: 4 }] })).resolves.toBeInstanceOf(URL);
    await expect(checkOutboundUrl('file:///etc/passwd', { allowPrivate: false })).rejects.toMatchObject({ reason: 'SCHEME_NOT_ALLOWED' });
  });
});

describe('requests through the guard', () => {
  let listener: Awaited<ReturnType<typeof connectionCounter>>;
  let closedPort: number;
  beforeAll(async () => {
    listener = await connectionCounter();
    const s = http.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    closedPort = (s.address() as AddressInfo).port;
    await new Promise<void>((r) => s.close(() => r()));
  });
  afterAll(() => listener.close());

  it.each(LOOPBACK_SPELLINGS)('http://%s:<open port>/ reaches no listener, and answers as for a closed port', async (host) => {
    const send = outboundFetch({ allowPrivate: false, resolve: noDns });
    const before = listener.connections();
    const open = await send(`http://${host}:${listener.port}/x`).catch((e: Error) => e);
    const closed = await send(`http://${host}:${closedPort}/x`).catch((e: Error) => e);
    expect(listener.connections()).toBe(before);
    expect(open).toBeInstanceOf(OutboundRefusedError);
    expect((closed as Error).message).toBe((open as Error).message.replace(String(listener.port), String(closedPort)));
  });

  it('a hosts-file name resolving to loopback reaches no listener; allowed, the same request does (the control)', async () => {
    const resolve = vi.fn<Resolver>(async () => [{ address: '127.0.0.1', family: 4 }]);
    const before = listener.connections();
    await expect(outboundFetch({ allowPrivate: false, resolve })(`http://calendar.intranet:${listener.port}/`)).rejects.toBeInstanceOf(OutboundRefusedError);
    expect(listener.connections()).toBe(before);
    const res = await outboundFetch({ allowPrivate: true, resolve })(`http://calendar.intranet:${listener.port}/`);
    expect(res.status).toBe(200);
    expect(listener.connections()).toBe(before + 1);
  });

  it('DNS rebinding: the name is resolved once per connection and the socket uses that answer', async () => {
    // First answer public (registration passes, nothing is connected), then loopback: the request is refused.
    const answers = ['93.184.215.14', '127.0.0.1'];
    const resolve = vi.fn<Resolver>(async () => [{ address: answers.shift() ?? '127.0.0.1', family: 4 }]);
    await checkOutboundUrl(`http://rebind.example:${listener.port}/`, { allowPrivate: false, resolve });
    const before = listener.connections();
    await expect(outboundFetch({ allowPrivate: false, resolve })(`http://rebind.example:${listener.port}/`)).rejects.toMatchObject({ reason: 'PRIVATE_ADDRESS' });
    expect(resolve).toHaveBeenCalledTimes(2);
    expect(listener.connections()).toBe(before);
  });

  it('follows no redirect to a refused address; `manual` hands the redirect back', async () => {
    // 127.0.0.1 stands in for a public server here (classify), [::1] stays refused.
    const classify = (a: string) => (a === '127.0.0.1' ? null : refusedRange(a));
    const redirector = http.createServer((req, res) => res.writeHead(302, { location: `http://[::1]:${listener.port}/internal` }).end());
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    const port = (redirector.address() as AddressInfo).port;
    try {
      const before = listener.connections();
      const send = outboundFetch({ allowPrivate: false, resolve: noDns, classify });
      await expect(send(`http://127.0.0.1:${port}/start`)).rejects.toMatchObject({ reason: 'PRIVATE_ADDRESS' });
      expect(listener.connections()).toBe(before);
      const manual = await send(`http://127.0.0.1:${port}/start`, { redirect: 'manual' });
      expect(manual.status).toBe(302);
      expect(manual.headers.get('location')).toContain('[::1]');
    } finally {
      await new Promise<void>((r) => redirector.close(() => r()));
    }
  });

  it('allowed, it behaves as fetch: method, headers, body, status, answer headers', async () => {
    const seen: { method?: string; auth?: string; body?: string } = {};
    const echo = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        Object.assign(seen, { method: req.method, auth: req.headers.authorization, body });
        res.writeHead(207, { 'content-type': 'application/xml', etag: '"e1"' }).end('<ok/>');
      });
    });
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
    try {
      const res = await outboundFetch({ allowPrivate: true })(`http://127.0.0.1:${(echo.address() as AddressInfo).port}/cal/`, {
        method: 'PROPFIND',
        headers: { authorization: 'Basic eDp5', depth: '1' },
        body: '<propfind/>',
      });
      expect(res.status).toBe(207);
      expect(res.headers.get('etag')).toBe('"e1"');
      expect(await res.text()).toBe('<ok/>');
      expect(seen).toEqual({ method: 'PROPFIND', auth: 'Basic eDp5', body: '<propfind/>' });
    } finally {
      await new Promise<void>((r) => echo.close(() => r()));
    }
  });
});

describe('the setting (OUTBOUND_ALLOW_PRIVATE)', () => {
  it.each([
    [{ NODE_ENV: 'development' }, true],
    [{ NODE_ENV: 'production' }, false],
    [{ NODE_ENV: 'test' }, false],
    [{ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE: '1' }, true],
    [{ NODE_ENV: 'development', OUTBOUND_ALLOW_PRIVATE: '0' }, false],
    [{ NODE_ENV: 'production', WEBHOOKS_ALLOW_PRIVATE: '1' }, true],
    [{ NODE_ENV: 'development', WEBHOOKS_ALLOW_PRIVATE: '0' }, false],
    [{ NODE_ENV: 'production', OUTBOUND_ALLOW_PRIVATE: '0', WEBHOOKS_ALLOW_PRIVATE: '1' }, false],
  ] as const)('%o -> allowed %s (on by default under npm run dev only)', (env, allowed) => {
    vi.stubEnv('OUTBOUND_ALLOW_PRIVATE', undefined);
    vi.stubEnv('WEBHOOKS_ALLOW_PRIVATE', undefined);
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
    try {
      expect(getConfig().outboundAllowPrivate).toBe(allowed);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
