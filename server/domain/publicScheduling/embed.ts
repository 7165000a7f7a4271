import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingProposals, publicLinks, verifiedDomains } from '@/db/schema';
import { hashSecret, SECRET_PREFIX } from '../ids';
import type { Locale } from '@/i18n/locales';

/**
 * Who may frame a customer's booking pages (docs/public-scheduling.md
 * "Embedding"): the customer's verified domains, those with `verified_at`
 * set. Only names, never ids, leave this module.
 */

/** At most this many domains per customer go into a page's policy (a header has a size). */
const MAX_EMBED_DOMAINS = 50;

/**
 * What a page needs of the link it shows before it renders: the link's customer (who may frame it)
 * and the link's default language (docs/public-scheduling.md "Languages"; null: English).
 */
export type PageLink = { customerId: string; defaultLanguage: Locale | null };

/** The live link with this alias (case-insensitive, as requesters address it), or null. */
export async function pageLinkOfAlias(db: Executor, alias: string): Promise<PageLink | null> {
  const [row] = await db
    .select({ customerId: publicLinks.customerId, defaultLanguage: publicLinks.defaultLanguage })
    .from(publicLinks)
    .where(and(eq(publicLinks.alias, alias.toLowerCase()), isNull(publicLinks.deletedAt)))
    .limit(1);
  return row ?? null;
}

/**
 * The public proposal a status token names: its customer, and the default language of the link it
 * was made through (null when that link is gone); null for no public proposal.
 */
export async function pageLinkOfStatusToken(db: Executor, token: string): Promise<PageLink | null> {
  if (!token.startsWith(SECRET_PREFIX.proposalToken)) return null;
  const [row] = await db
    .select({ customerId: bookingProposals.customerId, origin: bookingProposals.origin, defaultLanguage: publicLinks.defaultLanguage })
    .from(bookingProposals)
    .leftJoin(publicLinks, eq(publicLinks.id, bookingProposals.linkId))
    .where(eq(bookingProposals.accessTokenHash, hashSecret(token)))
    .limit(1);
  return row && row.origin === 'public' ? { customerId: row.customerId, defaultLanguage: row.defaultLanguage ?? null } : null;
}

/** The customer's verified domain names, oldest first, at most MAX_EMBED_DOMAINS. */
export async function verifiedDomainNames(db: Executor, customerId: string): Promise<string[]> {
  const rows = await db
    .select({ domain: verifiedDomains.domain })
    .from(verifiedDomains)
    .where(and(eq(verifiedDomains.customerId, customerId), isNotNull(verifiedDomains.verifiedAt)))
    .orderBy(asc(verifiedDomains.createdAt), asc(verifiedDomains.domain))
    .limit(MAX_EMBED_DOMAINS);
  return rows.map((r) => r.domain);
}
