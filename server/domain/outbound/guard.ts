import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { getConfig } from '@/server/config';
import { tracingEnabled, withClientSpan } from '@/server/observability/tracing';
import { refusedRange } from './addresses';

/**
 * The one outbound guard (docs/reliability.md "Outbound requests"). Every request the server
 * makes on a user's behalf goes through `outboundFetch`: webhook deliveries, CalDAV discovery
 * and sync, and the Google and Microsoft token and API endpoints. Registration-time checks
 * (webhook URLs, CalDAV server URLs) use `checkOutboundUrl` first, for a clear answer.
 *
 * - The host name is resolved once per connection by the guard's own `lookup`; every address
 *   of the answer is checked against ./addresses.ts, and the socket connects to an address
 *   of that same answer (no second lookup, so a DNS answer that changes cannot switch it).
 *   An IP literal (in any spelling the URL parser accepts: 2130706433, 0x7f000001, 127.1,
 *   [::ffff:127.0.0.1], ...) is normalised by the URL parser and checked before connecting.
 * - Redirects are followed by hand, at most MAX_REDIRECTS, each hop through the same check;
 *   Authorization is dropped when a redirect leaves the origin.
 * - A refusal is `OutboundRefusedError`, thrown before any connection is attempted, so the
 *   answer is the same whether anything listens on the target port or not.
 * - `OUTBOUND_ALLOW_PRIVATE=1` (on by default under `npm run dev`) lets every address through.
 */
const OUTBOUND_SETTING = 'OUTBOUND_ALLOW_PRIVATE';
const MAX_REDIRECTS = 5;
/** Largest answer body read (CalDAV multiget answers are the biggest). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

type ResolvedAddress = { address: string; family: number };
/** Resolves a host name to all its addresses (the system resolver by default; tests pass a stub). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;
export type OutboundOptions = {
  /** Default: the OUTBOUND_ALLOW_PRIVATE setting. */
  allowPrivate?: boolean;
  resolve?: Resolver;
  /** The range an address is refused for, or null (default ./addresses.ts; tests narrow it to stage a redirect). */
  classify?: (address: string) => string | null;
  /** What the request is for, naming its span (`webhook POST`, `caldav REPORT`; docs/operations.md "Traces"). */
  purpose?: OutboundPurpose;
};
type OutboundPurpose = 'webhook' | 'caldav' | 'google' | 'microsoft' | 'oauth';

export type OutboundRefusalReason = 'PRIVATE_ADDRESS' | 'UNRESOLVABLE_HOST' | 'SCHEME_NOT_ALLOWED' | 'INVALID_URL';

export class OutboundRefusedError extends Error {
  readonly code = 'OUTBOUND_REFUSED';
  constructor(
    readonly reason: OutboundRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundRefusedError';
  }
}

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));

function allowPrivateOf(opts: OutboundOptions): boolean {
  return opts.allowPrivate ?? getConfig().outboundAllowPrivate;
}

function privateRefusal(host: string, range: string): OutboundRefusedError {
  return new OutboundRefusedError(
    'PRIVATE_ADDRESS',
    `refused: ${host} is or resolves to a ${range} address; set ${OUTBOUND_SETTING}=1 to allow private addresses (development only)`,
  );
}

/** `[::1]` -> `::1`. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function parse(raw: string | URL): URL {
  let url: URL;
  try {
    url = raw instanceof URL ? raw : new URL(raw);
  } catch {
    throw new OutboundRefusedError('INVALID_URL', 'refused: not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new OutboundRefusedError('SCHEME_NOT_ALLOWED', 'refused: only http and https URLs');
  return url;
}

/** The addresses `host` may be reached at, or a refusal (any refused address in the answer refuses the whole name). */
async function resolveChecked(host: string, opts: OutboundOptions): Promise<ResolvedAddress[]> {
  const allow = allowPrivateOf(opts);
  const classify = opts.classify ?? refusedRange;
  if (isIP(host)) {
    const range = classify(host);
    if (range && !allow) throw privateRefusal(host, range);
    return [{ address: host, family: isIP(host) }];
  }
  let addrs: ResolvedAddress[];
  try {
    addrs = await (opts.resolve ?? systemResolver)(host);
  } catch {
    throw new OutboundRefusedError('UNRESOLVABLE_HOST', `refused: the host name ${host} does not resolve`);
  }
  if (addrs.length === 0) throw new OutboundRefusedError('UNRESOLVABLE_HOST', `refused: the host name ${host} does not resolve`);
  if (!allow) {
    for (const a of addrs) {
      const range = classify(a.address);
      if (range) throw privateRefusal(host, range);
    }
  }
  return addrs;
}

/**
 * Check a URL without connecting: http(s), and its host is, or resolves only to, allowed
 * addresses. With private addresses allowed there is nothing to check beyond the scheme (the
 * name is resolved when a request is made).
 */
export async function checkOutboundUrl(raw: string | URL, opts: OutboundOptions = {}): Promise<URL> {
  const url = parse(raw);
  if (!allowPrivateOf(opts)) await resolveChecked(hostOf(url), opts);
  return url;
}

/** The `lookup` the sockets use: resolves, checks, and hands the checked addresses to the connection. */
function outboundLookup(opts: OutboundOptions = {}): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, opts).then(
      (found) => {
        const addrs = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (addrs.length === 0) return callback(Object.assign(new Error(`no IPv${options.family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, addrs);
        callback(null, addrs[0].address, addrs[0].family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}

const NULL_BODY = new Set([101, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

function requestOnce(url: URL, method: string, headers: Headers, body: Buffer | undefined, signal: AbortSignal | null, opts: OutboundOptions): Promise<Response> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const outHeaders: Record<string, string> = {};
    headers.forEach((v, k) => (outHeaders[k] = v));
    if (body) outHeaders['content-length'] = String(body.length);
    const req = client.request(url, { method, headers: outHeaders, agent: false, lookup: outboundLookup(opts), signal: signal ?? undefined }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES) return req.destroy(new Error(`answer larger than ${MAX_RESPONSE_BYTES} bytes`));
        chunks.push(c);
      });
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const h = new Headers();
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
        try {
          resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: res.statusMessage, headers: h }));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A `fetch` whose every connection goes through the guard (see above). Bodies are read
 * whole (up to MAX_RESPONSE_BYTES); `redirect: 'manual'` hands 3xx answers back as they are.
 */
export function outboundFetch(opts: OutboundOptions = {}): typeof fetch {
  const guarded = guardedFetch(opts);
  if (!tracingEnabled()) return guarded;
  // Its span: CLIENT kind, the purpose and method, the host and port, the status; never the
  // URL's path or query (a webhook URL or CalDAV path may carry a secret or an address).
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    let url: URL | undefined;
    try {
      url = new URL(input instanceof Request ? input.url : String(input));
    } catch {
      url = undefined;
    }
    const attrs = { 'http.request.method': method, 'outbound.purpose': opts.purpose ?? 'other', ...(url ? { 'server.address': hostOf(url), 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) } : {}) };
    return withClientSpan(`${opts.purpose ?? 'outbound'} ${method}`, attrs, async (span) => {
      const res = await guarded(input, init);
      span.setAttribute('http.response.status_code', res.status);
      return res;
    });
  }) as typeof fetch;
}

function guardedFetch(opts: OutboundOptions): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    let body: Buffer | undefined = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    let url = parse(request.url);
    let method = request.method;
    const headers = new Headers(request.headers);
    for (let hop = 0; ; hop++) {
      // The literal-address check runs here (node skips `lookup` for IP literals).
      if (isIP(hostOf(url))) await resolveChecked(hostOf(url), opts);
      const res = await requestOnce(url, method, headers, body, request.signal, opts);
      const location = res.headers.get('location');
      if (!REDIRECT.has(res.status) || !location || request.redirect === 'manual') return res;
      if (request.redirect === 'error') throw new TypeError(`redirected to ${location}`);
      if (hop >= MAX_REDIRECTS) throw new TypeError(`more than ${MAX_REDIRECTS} redirects`);
      const next = parse(new URL(location, url));
      if (next.origin !== url.origin) headers.delete('authorization');
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      url = next;
    }
  }) as typeof fetch;
}
