import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { owners, publicLinks } from '@/db/schema';
import { ownerRules } from '../../claims';
import { awayAt } from '../../scheduling';
import { findLinkByIdOrAlias, type LinkRecord } from '../admin/links';

/**
 * Away redirects (docs/public-scheduling.md "Away: sending requesters to a colleague"): while a
 * link's owner is out of office and the link names a colleague's link, requesters are sent there,
 * with a note saying who is away and until when. A redirect is followed on while the owner reached
 * is away too and redirects as well, never to a link already passed (so even a loop written by two
 * concurrent changes ends), and at most MAX_HOPS times.
 */
const MAX_HOPS = 5;

export type AwayNote = {
  /** The away owner's display name (never their email). */
  owner_name: string | null;
  /** The last local date of the absence (YYYY-MM-DD, the owner's zone). */
  away_until: string;
  /** The first instant after it (UTC). */
  back_at: string;
};

/** The owner of this link is away now: until when. */
function awayOf(rec: LinkRecord, now: Date): { away_until: string; back_at: string } | null {
  const away = awayAt(ownerRules(rec.owner), now.getTime());
  return away ? { away_until: away.end, back_at: new Date(away.back).toISOString() } : null;
}

/** A live link of the customer, with its owner, by id; null when gone. */
async function liveLink(db: Executor, customerId: string, id: string): Promise<LinkRecord | null> {
  const [found] = await db
    .select({ link: publicLinks, owner: owners })
    .from(publicLinks)
    .innerJoin(owners, eq(owners.id, publicLinks.ownerId))
    .where(and(eq(publicLinks.id, id), eq(publicLinks.customerId, customerId), isNull(publicLinks.deletedAt)))
    .limit(1);
  return found ?? null;
}

/** Where requesters of this link go now instead, with the note for that page; null: they stay. */
async function awayRedirect(db: Executor, rec: LinkRecord, now: Date): Promise<{ to: LinkRecord; note: AwayNote } | null> {
  const away = rec.link.awayRedirectLinkId ? awayOf(rec, now) : null;
  if (!away) return null;
  const passed = new Set([rec.link.id]);
  let at = rec;
  for (let hop = 0; hop < MAX_HOPS && at.link.awayRedirectLinkId && !passed.has(at.link.awayRedirectLinkId); hop++) {
    if (hop > 0 && !awayOf(at, now)) break; // the colleague reached is in: they take the requesters
    const next = await liveLink(db, rec.link.customerId, at.link.awayRedirectLinkId);
    if (!next) break;
    passed.add(next.link.id);
    at = next;
  }
  return at === rec ? null : { to: at, note: { owner_name: rec.owner.name, ...away } };
}

/**
 * The note a link's page shows when a requester arrives from `fromAlias`: only while that link
 * sends its requesters to this one now, so the note cannot be made up by editing the address.
 */
async function awayNoteFrom(db: Executor, fromAlias: string, to: LinkRecord, now: Date): Promise<AwayNote | null> {
  const from = await findLinkByIdOrAlias(db, fromAlias);
  if (!from || from.link.deletedAt || from.link.customerId !== to.link.customerId) return null;
  const redirect = await awayRedirect(db, from, now);
  return redirect && redirect.to.link.id === to.link.id ? redirect.note : null;
}

/**
 * What a link's page needs (docs/public-scheduling.md "Away"): the alias to send requesters to now
 * (null: show this page), and, when they came from `awayFrom`, the note to show here.
 */
export async function linkAwayState(db: Executor, idOrAlias: string, awayFrom: string | undefined, now: Date): Promise<{ redirect_to: string | null; away_note: AwayNote | null }> {
  const rec = await findLinkByIdOrAlias(db, idOrAlias);
  if (!rec || rec.link.deletedAt) return { redirect_to: null, away_note: null };
  const redirect = await awayRedirect(db, rec, now);
  return { redirect_to: redirect?.to.link.alias ?? null, away_note: awayFrom && !redirect ? await awayNoteFrom(db, awayFrom, rec, now) : null };
}
