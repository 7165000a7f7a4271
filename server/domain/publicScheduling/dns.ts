import { Resolver } from 'node:dns/promises';

/**
 * DNS TXT look-ups for domain verification (docs/public-scheduling.md "Verified domains":
 * the record `<prefix>=<challenge>`). The resolver address is a parameter:
 * domain code never reads the environment; the transport passes
 * `getConfig().dnsResolver` (DNS_RESOLVER), and undefined means the system
 * resolver (/etc/resolv.conf).
 */

/** `host`, `host:port`, `[v6]:port`, or several of these separated by commas. */
export type ResolverAddress = string | undefined;

type TxtLookup =
  | { ok: true; records: string[] }
  /** `nodata`: the name exists (or not) but carries no TXT record; `error`: the look-up itself failed. */
  | { ok: false; kind: 'nodata' | 'error'; code: string };

const TIMEOUT_MS = 2000;
const TRIES = 2;

function resolverFor(address: ResolverAddress): Resolver {
  const resolver = new Resolver({ timeout: TIMEOUT_MS, tries: TRIES });
  if (address) {
    resolver.setServers(
      address
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  return resolver;
}

/**
 * The TXT records at `name`, each one's character-strings joined (a long
 * record arrives split into 255-byte pieces). Never throws: failures come
 * back as a result, so verification can answer them as "not verified".
 */
async function lookupTxt(name: string, address: ResolverAddress): Promise<TxtLookup> {
  let resolver: Resolver;
  try {
    resolver = resolverFor(address);
  } catch {
    return { ok: false, kind: 'error', code: 'EBADRESOLVER' };
  }
  try {
    const records = await resolver.resolveTxt(name);
    return { ok: true, records: records.map((chunks) => chunks.join('')) };
  } catch (err) {
    const code = typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : 'EUNKNOWN';
    return { ok: false, kind: code === 'ENOTFOUND' || code === 'ENODATA' ? 'nodata' : 'error', code };
  } finally {
    resolver.cancel();
  }
}

/** Whether `name` carries a TXT record exactly equal to `expected`, and what was seen otherwise. */
export async function txtRecordMatches(
  name: string,
  expected: string,
  address: ResolverAddress,
): Promise<{ matched: true } | { matched: false; found: string[]; failure: string | null }> {
  const result = await lookupTxt(name, address);
  if (!result.ok) return { matched: false, found: [], failure: result.kind === 'nodata' ? null : result.code };
  if (result.records.includes(expected)) return { matched: true };
  return { matched: false, found: result.records, failure: null };
}
