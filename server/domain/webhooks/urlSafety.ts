import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { DomainError } from '../errors';

/**
 * SSRF guard of webhook URLs (docs/webhooks.md "Which URLs"): only http(s), and, unless
 * allowed by configuration, no address that is private, loopback, link-local, shared,
 * multicast or reserved. A host name is resolved and EVERY address checked, at creation and
 * again on each delivery through `guardedLookup` (the connection uses the address checked,
 * so a DNS answer that changes in between cannot redirect it).
 */
const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['64:ff9b::', 96], ['100::', 64],
] as const) blocked.addSubnet(net, bits, 'ipv6');

/** True when the address is not a public unicast address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true; // not an address at all
}

function refused(message: string, reason: string): DomainError {
  return new DomainError('WEBHOOK_URL_REFUSED', message, { reason, fields: [{ field: 'url', message }] });
}

/** Parse and check the form of a webhook URL (scheme, no credentials, length). */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('Not a URL', 'INVALID_URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused('Only http and https URLs', 'SCHEME_NOT_ALLOWED');
  if (url.username || url.password) throw refused('Credentials in the URL are not accepted (verify the signature instead)', 'CREDENTIALS_IN_URL');
  return url;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function resolveAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));
}

/** Refuse a URL whose host is, or resolves to any, private address (unless allowPrivate). */
export async function assertPublicTarget(raw: string, allowPrivate: boolean): Promise<URL> {
  const url = parseWebhookUrl(raw);
  if (allowPrivate) return url;
  const host = hostOf(url);
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw refused('The URL points at a private, loopback or link-local address', 'PRIVATE_ADDRESS');
    return url;
  }
  let addrs: LookupAddress[];
  try {
    addrs = await resolveAll(host);
  } catch {
    throw refused('The host name does not resolve', 'UNRESOLVABLE_HOST');
  }
  if (addrs.length === 0 || addrs.some((a) => isPrivateAddress(a.address))) {
    throw refused('The host resolves to a private, loopback or link-local address', 'PRIVATE_ADDRESS');
  }
  return url;
}

/** A `lookup` for http.request that resolves every address and fails when any is private. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true, family: options.family }, (err, addrs) => {
      if (err) return callback(err, '', 0);
      if (!allowPrivate && (addrs.length === 0 || addrs.some((a) => isPrivateAddress(a.address)))) {
        return callback(Object.assign(new Error(`refused: ${hostname} resolves to a private address`), { code: 'EPRIVATE' }), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addrs);
      callback(null, addrs[0].address, addrs[0].family);
    });
  };
}

/** For an IP literal host the lookup is skipped by node: check it directly. */
export function literalHostRefused(url: URL, allowPrivate: boolean): boolean {
  const host = hostOf(url);
  return !allowPrivate && isIP(host) !== 0 && isPrivateAddress(host);
}
