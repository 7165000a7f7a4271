import { and, count, eq } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { claims, owners, publicMeetingTypes, waitlistEntries } from '@/db/schema';
import type { Locale } from '@/i18n/locales';
import { mailLocale } from '@/i18n/mail';
import { normalizeEmail } from '../access';
import { DomainError, invalidField } from '../errors';
import { hashSecret, newId } from '../ids';
import { entryPageUrl, loadTarget, newEntryToken, offerProposalToken, validateWindow } from '../claims';
import { canonicalTimeZone, compatibleInstant, daysFromCivil } from '../scheduling';
import { sendMail } from '../email';
import { waitlistJoinedMessage } from '../email/waitlistMessages';
import { loadPublicType } from '../publicScheduling/requester/schedule';

/**
 * The waitlist, a requester's side (docs/public-scheduling.md "Waitlist"): on a public meeting
 * type's page a requester joins for a day, or some hours of it, with their name and email. The
 * entry waits in the same table and order as an agent's (meeting-class priority, then time
 * joined); the transaction that frees time offers it a hold (claims/waitlist/offers.ts), its mail goes out after
 * COMMIT (claims/waitlist/offerMail.ts), and the requester confirms or declines on the entry's page
 * (requesterOffer.ts), addressed by an unguessable token that the join mail carries.
 */

/** The most entries one email may have waiting on one link. */
const MAX_WAITING_PER_REQUESTER = 5;

export type PublicWaitlistJoin = {
  slug: string;
  durationMinutes: number;
  /** The day, in the requester's zone (YYYY-MM-DD). */
  date: string;
  /** Local times (HH:MM) bounding the wait; both absent: the whole day. */
  from?: string;
  to?: string;
  timeZone: string;
  name?: string;
  email: string;
};

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The window a day (and its hours) names in the requester's zone; a window begun already starts now. */
function windowOf(input: PublicWaitlistJoin, zone: string, now: Date): { start: Date; end: Date } {
  const [y, m, d] = input.date.split('-').map(Number);
  const day = daysFromCivil(y, m, d);
  const from = input.from ? minutesOf(input.from) : 0;
  const to = input.to ? minutesOf(input.to) : 24 * 60;
  if (to <= from) throw invalidField('to', 'must be after from');
  const start = compatibleInstant(zone, day, from * 60);
  const end = compatibleInstant(zone, day, to * 60);
  if (end <= now.getTime()) throw new DomainError('PAST_TIME', 'The window has passed');
  // A day already begun: wait from the next whole minute.
  return { start: new Date(Math.max(start, Math.ceil(now.getTime() / 60_000) * 60_000)), end: new Date(end) };
}

/**
 * Join from a public page: a type of one host this requester may reach, one of its lengths, a
 * window of at least that length on one day (not past). Nothing is held now. The requester is
 * mailed the entry's page (where they leave) in the pages' language.
 */
export async function joinPublicWaitlist(db: Db, link: string, bearer: string | null, input: PublicWaitlistJoin, opts: { baseUrl: string; locale: Locale; now: Date }): Promise<{ status: 'waiting' }> {
  const { now } = opts;
  const ctx = await loadPublicType(db, link, input.slug, bearer);
  const type = ctx.type.type;
  if (type.hostMode !== 'single') throw invalidField('public_meeting_type', 'a waitlist is for a meeting type with one host');
  if (!type.durationMinutes.includes(input.durationMinutes)) throw invalidField('duration_minutes', `must be one of ${type.durationMinutes.join(', ')}`);
  const zone = canonicalTimeZone(input.timeZone);
  if (!zone) throw invalidField('time_zone', 'must be an IANA time zone');
  const window = windowOf(input, zone, now);
  validateWindow(window, input.durationMinutes, now);
  const email = normalizeEmail(input.email);
  const [{ n }] = await db
    .select({ n: count() })
    .from(waitlistEntries)
    .where(and(eq(waitlistEntries.linkId, ctx.link.link.id), eq(waitlistEntries.requesterEmail, email), eq(waitlistEntries.status, 'waiting')));
  if (n >= MAX_WAITING_PER_REQUESTER) throw new DomainError('waitlist_full', `At most ${MAX_WAITING_PER_REQUESTER} waitlist entries per email on one link`);
  const target = await loadTarget(db, ctx.link.link.customerId, { ownerEmail: ctx.link.owner.email, meetingClass: ctx.type.meetingClass.name }, false);
  const token = newEntryToken();
  await db.insert(waitlistEntries).values({
    id: newId(now.getTime()),
    customerId: ctx.link.link.customerId,
    agentId: null,
    ownerId: target.owner.id,
    meetingClassId: target.meetingClass.id,
    durationMinutes: input.durationMinutes,
    windowStart: window.start,
    windowEnd: window.end,
    expiresAt: null,
    linkId: ctx.link.link.id,
    meetingTypeId: type.id,
    requesterEmail: email,
    requesterName: input.name?.trim() || null,
    requesterLocale: opts.locale,
    requesterTimeZone: zone,
    tokenHash: token.hash,
    tokenSealed: token.sealed,
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    createdAt: now,
    updatedAt: now,
  });
  await sendMail(waitlistJoinedMessage(email, { title: type.title, ownerName: ctx.link.owner.name, timeZone: zone, window }, entryPageUrl(opts.baseUrl, token.secret), opts.locale));
  return { status: 'waiting' };
}

export type PublicWaitlistPage = {
  /** confirmed: the requester confirmed the offer (the request's status page says the rest). */
  status: 'waiting' | 'offered' | 'confirmed' | 'lapsed' | 'cancelled' | 'expired';
  title: string;
  owner_name: string | null;
  duration_minutes: number;
  window_start: string;
  window_end: string;
  /** The zone the requester's pages showed times in. */
  time_zone: string;
  /** While offered: the held time and when the hold ends. */
  offer: { start: string; end: string; expires_at: string } | null;
  /** Once confirmed: the request's status page path. */
  status_path: string | null;
  locale: Locale;
};

export type EntryRow = typeof waitlistEntries.$inferSelect;

/** The requester's entry a token names (locked for an update), or not_found. */
export async function entryByToken(db: Executor, token: string, lock = false): Promise<EntryRow> {
  if (!token.startsWith('wl_') || token.length > 100) throw new DomainError('not_found', 'Waitlist entry not found');
  const q = db.select().from(waitlistEntries).where(eq(waitlistEntries.tokenHash, hashSecret(token))).limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw new DomainError('not_found', 'Waitlist entry not found');
  return row;
}

/** The entry's id for a token, or null (the page's rate-limit key: only real entries get budgets). */
export async function entryIdForToken(db: Executor, token: string): Promise<string | null> {
  try {
    return (await entryByToken(db, token)).id;
  } catch {
    return null;
  }
}

/** The entry's page: what it waits for, and the offer while one stands. */
export async function publicWaitlistPage(db: Executor, token: string, now: Date): Promise<PublicWaitlistPage> {
  const e = await entryByToken(db, token);
  const [type] = await db.select({ title: publicMeetingTypes.title }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, e.meetingTypeId!));
  const [owner] = await db.select({ name: owners.name, timeZone: owners.timeZone }).from(owners).where(eq(owners.id, e.ownerId));
  const [hold] = e.holdId ? await db.select({ status: claims.status, start: claims.startAt, end: claims.endAt, expiresAt: claims.expiresAt }).from(claims).where(eq(claims.id, e.holdId)) : [];
  let status: PublicWaitlistPage['status'] = e.status;
  let offer: PublicWaitlistPage['offer'] = null;
  if (e.proposalId) status = 'confirmed';
  else if (e.status === 'waiting' && e.windowEnd <= now) status = 'expired';
  else if (e.status === 'offered') {
    const live = hold?.status === 'active' && hold.expiresAt && hold.expiresAt > now;
    status = live ? 'offered' : 'lapsed';
    if (live) offer = { start: hold.start.toISOString(), end: hold.end.toISOString(), expires_at: hold.expiresAt!.toISOString() };
  }
  return {
    status,
    title: type?.title ?? '',
    owner_name: owner?.name ?? null,
    duration_minutes: e.durationMinutes,
    window_start: e.windowStart.toISOString(),
    window_end: e.windowEnd.toISOString(),
    time_zone: e.requesterTimeZone ?? owner?.timeZone ?? 'UTC',
    offer,
    status_path: e.proposalId ? `/status/${offerProposalToken(token).secret}` : null,
    locale: mailLocale(e.requesterLocale),
  };
}
