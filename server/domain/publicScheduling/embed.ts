import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingProposals, publicLinks, verifiedDomains } from '@/db/schema';
import { hashSecret, SECRET_PREFIX } from '../ids';

/**
 * Who may frame a customer's booking pages (docs/public-scheduling.md
 * "Embedding"): the customer's verified domains, those with `verified_at`
 * set. Only names, never ids, leave this module.
 */

/** At most this many domains per customer go into a page's policy (a header has a size). */
const MAX_EMBED_DOMAINS = 50;

/** The customer whose live link has this alias (case-insensitive, as requesters address it), or null. */
export async function customerOfAlias(db: Executor, alias: string): Promise<string | null> {
  const [row] = await db
    .select({ customerId: publicLinks.customerId })
    .from(publicLinks)
    .where(and(eq(publicLinks.alias, alias.toLowerCase()), isNull(publicLinks.deletedAt)))
    .limit(1);
  return row?.customerId ?? null;
}

/** The customer of the public proposal a status token names, or null. */
export async function customerOfStatusToken(db: Executor, token: string): Promise<string | null> {
  if (!token.startsWith(SECRET_PREFIX.proposalToken)) return null;
  const [row] = await db
    .select({ customerId: bookingProposals.customerId, origin: bookingProposals.origin })
    .from(bookingProposals)
    .where(eq(bookingProposals.accessTokenHash, hashSecret(token)))
    .limit(1);
  return row && row.origin === 'public' ? row.customerId : null;
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
