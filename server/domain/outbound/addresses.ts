import { isIP } from 'node:net';

/**
 * Which addresses a request made on a user's behalf may reach (docs/reliability.md
 * "Outbound requests"). Pure: an address in, the refused range it falls in (or null) out.
 *
 * IPv4: everything but public unicast is refused (the table below). IPv6: only global
 * unicast (2000::/3) is allowed, minus the ranges inside it that are not reachable hosts;
 * the forms that carry an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by the IPv4
 * address they carry, and the deprecated or ambiguous ones (IPv4-compatible ::/96,
 * IPv4-translated ::ffff:0:0:0/96, Teredo and the rest of 2001::/23) are refused whole.
 */
const IPV4_REFUSED: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'this network / unspecified (0.0.0.0/8)'],
  ['10.0.0.0', 8, 'private (10.0.0.0/8)'],
  ['100.64.0.0', 10, 'carrier-grade NAT (100.64.0.0/10)'],
  ['127.0.0.0', 8, 'loopback (127.0.0.0/8)'],
  ['169.254.0.0', 16, 'link-local (169.254.0.0/16)'],
  ['172.16.0.0', 12, 'private (172.16.0.0/12)'],
  ['192.0.0.0', 24, 'IETF protocol assignments (192.0.0.0/24)'],
  ['192.0.2.0', 24, 'documentation (192.0.2.0/24)'],
  ['192.88.99.0', 24, '6to4 relay anycast (192.88.99.0/24)'],
  ['192.168.0.0', 16, 'private (192.168.0.0/16)'],
  ['198.18.0.0', 15, 'benchmarking (198.18.0.0/15)'],
  ['198.51.100.0', 24, 'documentation (198.51.100.0/24)'],
  ['203.0.113.0', 24, 'documentation (203.0.113.0/24)'],
  ['224.0.0.0', 4, 'multicast (224.0.0.0/4)'],
  ['240.0.0.0', 4, 'reserved and broadcast (240.0.0.0/4)'],
];

function ipv4ToInt(a: string): number {
  return a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const IPV4_TABLE = IPV4_REFUSED.map(([net, bits, label]) => ({ base: ipv4ToInt(net), size: 2 ** (32 - bits), label }));

function refusedIPv4Int(n: number): string | null {
  for (const r of IPV4_TABLE) if (n >= r.base && n < r.base + r.size) return r.label;
  return null;
}

/** Eight 16-bit groups of an IPv6 address (zone id dropped, dotted IPv4 tail understood). */
function ipv6Groups(address: string): number[] {
  let a = address.replace(/%.*$/, '').toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (tail) {
    const n = ipv4ToInt(tail[1]);
    a = `${a.slice(0, -tail[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = a.split('::') as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  if (rest === undefined) return left;
  const right = parse(rest);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

function embedded(hi: number, lo: number): number {
  return hi * 65536 + lo;
}

function refusedIPv6(g: number[]): string | null {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zero(0, 5) && g[5] === 0xffff) {
    const inner = refusedIPv4Int(embedded(g[6], g[7]));
    return inner && `IPv4-mapped ${inner}`;
  }
  if (zero(0, 6)) return 'unspecified, loopback or IPv4-compatible (::/96)';
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return 'IPv4-translated (::ffff:0:0:0/96)';
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    if (zero(2, 6)) {
      const inner = refusedIPv4Int(embedded(g[6], g[7]));
      return inner && `NAT64 ${inner}`;
    }
    return 'local-use NAT64 (64:ff9b:1::/48)';
  }
  if ((g[0] & 0xe000) !== 0x2000) {
    if ((g[0] & 0xfe00) === 0xfc00) return 'unique local (fc00::/7)';
    if ((g[0] & 0xffc0) === 0xfe80) return 'link-local (fe80::/10)';
    if ((g[0] & 0xff00) === 0xff00) return 'multicast (ff00::/8)';
    return 'not global unicast (outside 2000::/3)';
  }
  if (g[0] === 0x2002) {
    const inner = refusedIPv4Int(embedded(g[1], g[2]));
    return inner && `6to4 ${inner}`;
  }
  if (g[0] === 0x2001 && g[1] < 0x0200) return 'IETF protocol assignments, Teredo and benchmarking (2001::/23)';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'documentation (2001:db8::/32)';
  if (g[0] === 0x3fff && g[1] < 0x1000) return 'documentation (3fff::/20)';
  return null;
}

/**
 * The refused range `address` falls in, or null when it is a public unicast address. Anything
 * that is not an IP address is refused.
 */
export function refusedRange(address: string): string | null {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return refusedIPv4Int(ipv4ToInt(address));
  if (family === 6) return refusedIPv6(ipv6Groups(address));
  return 'not an IP address';
}
