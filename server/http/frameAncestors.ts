import type { Executor } from '@/db/client';
import { getDb } from '@/server/db';
import { RESERVED_ALIASES, SLUG_RE } from '@/server/domain/publicScheduling/admin/validation';
import { pageLinkOfAlias, pageLinkOfStatusToken, verifiedDomainNames, type PageLink } from '@/server/domain/publicScheduling/embed';
import type { Locale } from '@/i18n/locales';

/**
 * Which pages a customer's own site may frame, and from where
 * (docs/public-scheduling.md "Embedding"). proxy.ts asks for every page:
 *
 * - A booking page (`/{alias}`, `/{alias}/{slug}`) and a proposal's status
 *   page (the status_url in a browser, `/status/{token}`) may be framed by
 *   this origin and by the link's customer's verified domains.
 * - Every other page (dashboard, sign-in, landing, unknown addresses): null,
 *   never framed.
 *
 * Look-ups are cached per alias, token and customer for CACHE_TTL_MS, so a
 * booking page costs no query of its own on most loads; a newly verified
 * domain can frame within that time, a deleted one stops within it too.
 * A failed look-up answers null: the page renders, unframeable.
 *
 * The same cached look-up of the link answers the link's default language
 * (`linkDefaultLanguageFor`, docs/public-scheduling.md "Languages"), so
 * choosing a page's language adds no query either.
 */
export const CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

type Entry<T> = { at: number; value: Promise<T> };

/** A small time-bounded cache; loads in flight are shared, failures are not kept. */
class TtlCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  get(key: string, now: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && now - hit.at < CACHE_TTL_MS) return hit.value;
    if (hit) this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    const value = load();
    this.entries.set(key, { at: now, value });
    value.catch(() => this.entries.delete(key));
    return value;
  }
  clear(): void {
    this.entries.clear();
  }
}

const linkByAlias = new TtlCache<PageLink | null>();
const linkByToken = new TtlCache<PageLink | null>();
const domainsByCustomer = new TtlCache<string[]>();

/** Forget every cached answer (tests). */
export function clearFrameAncestorsCache(): void {
  linkByAlias.clear();
  linkByToken.clear();
  domainsByCustomer.clear();
}

export type EmbedTarget = { alias: string } | { token: string };

const ALIAS_SHAPE = /^[a-z0-9](?:[a-z0-9-]{1,62}[a-z0-9])$/;

/** The link or status token a page path addresses, or null for any other page (no look-up at all). */
export function embedTarget(pathname: string): EmbedTarget | null {
  const parts = pathname.split('/').filter(Boolean);
  if (parts.length === 2 && parts[0] === 'status') return { token: parts[1] };
  if (parts.length === 3 && parts[0] === 'public' && parts[1] === 'booking-proposals') return { token: parts[2] };
  if (parts.length < 1 || parts.length > 2) return null;
  const alias = parts[0].toLowerCase();
  if (!ALIAS_SHAPE.test(alias) || RESERVED_ALIASES.has(alias)) return null;
  if (parts.length === 2 && !SLUG_RE.test(parts[1].toLowerCase())) return null;
  return { alias };
}

/** The CSP sources of verified domains: any port, https; also http while this service itself is served without TLS (development, tests). */
export function domainSources(domains: readonly string[], secure: boolean): string[] {
  return domains.flatMap((d) => (secure ? [`https://${d}:*`] : [`https://${d}:*`, `http://${d}:*`]));
}

export type FrameAncestors = { domains: string[]; sources: string[] };

/**
 * For a page path: the verified domains that may frame it and their CSP
 * sources (`'self'` is added by the policy), or null when no one may.
 */
export async function frameAncestorsFor(pathname: string, secure: boolean, now = Date.now(), open: () => Promise<Executor> = getDb): Promise<FrameAncestors | null> {
  try {
    const customerId = (await pageLinkFor(pathname, now, open))?.customerId;
    if (!customerId) return null;
    const domains = await domainsByCustomer.get(customerId, now, async () => verifiedDomainNames(await open(), customerId));
    return { domains, sources: domainSources(domains, secure) };
  } catch {
    return null;
  }
}

/** The link a booking or status page shows (cached as above), or null for any other page. */
function pageLinkFor(pathname: string, now: number, open: () => Promise<Executor>): Promise<PageLink | null> {
  const target = embedTarget(pathname);
  if (!target) return Promise.resolve(null);
  return 'alias' in target
    ? linkByAlias.get(target.alias, now, async () => pageLinkOfAlias(await open(), target.alias))
    : linkByToken.get(target.token, now, async () => pageLinkOfStatusToken(await open(), target.token));
}

/**
 * The default language of the link a booking or status page shows (docs/public-scheduling.md
 * "Languages"), from the cache frameAncestorsFor fills; null for other pages, a link without one,
 * or a failed look-up (the page is English then, as before).
 */
export async function linkDefaultLanguageFor(pathname: string, now = Date.now(), open: () => Promise<Executor> = getDb): Promise<Locale | null> {
  try {
    return (await pageLinkFor(pathname, now, open))?.defaultLanguage ?? null;
  } catch {
    return null;
  }
}
