import { and, asc, desc, eq, exists, inArray, isNull, or, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { selectVideoLink } from '@/db/hot/videoLinks';
import { bookingInvitations, bookingVideoLinks, calendarBookingEvents, calendars, claims, publicMeetingTypes, type BookingVideoLinkRow, type VideoProvider } from '@/db/schema';
import { newId } from '../ids';
import type { CalendarProvider, ConferenceResult } from './provider';

/**
 * Video links (docs/calendars.md "Video links"). A meeting type's video setting gives each of
 * its bookings one row of booking_video_links, written in the booking's own transaction: a
 * fixed link is ready at once; a Google Meet or Teams link is pending, named to the owner's
 * connected calendar of that provider, and made by that calendar's write-back during its
 * sync (under the calendar's lease, never inside a claim transaction): the provider event of
 * the booking is written with a conference request, and the answer's join link is kept.
 * A calendar with a pending link is due for sync at once (sync.ts dueCalendars), so the link is
 * made right after the booking (a booking request nudges the sync loop); each try counts, and
 * MAX_VIDEO_ATTEMPTS tries without a link make it failed. A move
 * updates the same event (the conference stays); a cancel deletes it (the conference goes).
 */
export const MAX_VIDEO_ATTEMPTS = 5;
const CALENDAR_TYPE: Record<Exclude<VideoProvider, 'link'>, string> = { google_meet: 'google', microsoft_teams: 'microsoft' };
const PROVIDER_NAME: Record<VideoProvider, string> = { google_meet: 'Google Meet', microsoft_teams: 'Microsoft Teams', link: 'Video link' };

/** What every answer shows of a booking's video link; `removed` once the booking is no longer on. */
export type VideoLinkView = { provider: VideoProvider; status: 'pending' | 'ready' | 'failed' | 'removed'; join_url: string | null; error: string | null };

export function videoLinkView(row: BookingVideoLinkRow, bookingOn: boolean): VideoLinkView {
  if (!bookingOn) return { provider: row.provider, status: 'removed', join_url: null, error: null };
  return { provider: row.provider, status: row.status, join_url: row.status === 'ready' ? row.joinUrl : null, error: row.status === 'ready' ? null : row.lastError };
}

/** The provider's name in words ("Google Meet"). */
export const videoProviderName = (p: VideoProvider) => PROVIDER_NAME[p];

/** The acceptance mail's line about a type's video (docs/calendars.md "Video links"): the fixed link, or where the made one will show. */
export function videoMailLine(t: { videoProvider: VideoProvider | null; videoUrl: string | null }): string | null {
  if (!t.videoProvider) return null;
  if (t.videoProvider === 'link') return t.videoUrl;
  return `a ${PROVIDER_NAME[t.videoProvider]} link, shown on your status page and in "Add to calendar" as soon as it is made`;
}

/** The warning a booking answer carries while its link is not ready (docs/calendars.md "Video links"). */
export function videoLinkWarning(v: VideoLinkView | null): string | null {
  if (!v || v.status === 'ready' || v.status === 'removed') return null;
  return v.status === 'pending'
    ? `VIDEO_LINK_PENDING: the ${videoProviderName(v.provider)} link is made by the owner's calendar at its next sync; the booking stands`
    : `VIDEO_LINK_FAILED: ${v.error ?? 'the link could not be made'}; the booking stands`;
}

/**
 * A video link asked for one booking (docs/calendars.md "Video links"): the provider, and a fixed
 * link's url. A group booking's member other than the organizer names the organizer's booking,
 * owner and calendar (`sharedFrom`): its row is never made, it shows what the organizer's becomes.
 */
export type VideoRequest = { provider: VideoProvider; url?: string | null; sharedFrom?: { claimId: string; ownerId: string; calendarId: string | null } };

/**
 * A group booking's video request of one member (docs/calendars.md "Video links"): a fixed link
 * on every member's booking; a Meet or Teams link made once, by the organizer's calendar (the
 * organizer's booking asks for it), every other member's booking showing it.
 */
export function memberVideoRequest(setting: VideoRequest, organizer: { claimId: string; ownerId: string; calendarId: string | null }, ownerId: string): VideoRequest {
  return setting.provider === 'link' || ownerId === organizer.ownerId ? setting : { ...setting, sharedFrom: organizer };
}

/**
 * The calendar that makes an owner's Meet or Teams link: the owner's active calendar of the
 * provider, the booking's own when it is one, else the primary first; with none, the error the
 * link waits with until one is connected.
 */
async function linkMaker(tx: Executor, owner: { ownerId: string; calendarId: string | null }, provider: Exclude<VideoProvider, 'link'>): Promise<{ calendarId: string | null; error: string | null }> {
  const wanted = CALENDAR_TYPE[provider];
  const [cal] = await tx
    .select({ id: calendars.id })
    .from(calendars)
    .where(and(eq(calendars.ownerId, owner.ownerId), eq(calendars.type, wanted), eq(calendars.status, 'active')))
    .orderBy(...(owner.calendarId ? [desc(sql`${calendars.id} = ${owner.calendarId}`)] : []), desc(calendars.isPrimary), asc(calendars.createdAt))
    .limit(1);
  if (cal) return { calendarId: cal.id, error: null };
  return { calendarId: null, error: `No connected ${wanted === 'google' ? 'Google' : 'Microsoft'} calendar to make the ${PROVIDER_NAME[provider]} link with; connect one and the link is made at its next sync` };
}

/**
 * Record the video link of a booking just made (in the booking's transaction; no provider
 * call): the meeting type's setting (`meetingTypeId`), or the agent's own (`setting`, POST
 * /v1/bookings). Nothing without one. A group member's (`setting.sharedFrom`) is pending with
 * the organizer's calendar's error, as the organizer's own row starts. Returns the row.
 */
export async function recordVideoLink(
  tx: Executor,
  b: { claimId: string; ownerId: string; calendarId: string | null; meetingTypeId?: string | null; setting?: VideoRequest | null },
  now: Date,
): Promise<BookingVideoLinkRow | null> {
  let type: { provider: VideoProvider | null; url: string | null } | undefined = b.setting ? { provider: b.setting.provider, url: b.setting.url ?? null } : undefined;
  if (!type && b.meetingTypeId) [type] = await tx.select({ provider: publicMeetingTypes.videoProvider, url: publicMeetingTypes.videoUrl }).from(publicMeetingTypes).where(eq(publicMeetingTypes.id, b.meetingTypeId));
  if (!type?.provider) return null;
  const base = { claimId: b.claimId, ownerId: b.ownerId, provider: type.provider, createdAt: now, updatedAt: now };
  if (type.provider === 'link') {
    const [row] = await tx.insert(bookingVideoLinks).values({ ...base, status: 'ready', joinUrl: type.url }).onConflictDoNothing().returning();
    return row ?? null;
  }
  const sharedFrom = b.setting?.sharedFrom;
  const maker = await linkMaker(tx, sharedFrom ?? b, type.provider);
  const values = sharedFrom ? { ...base, madeByClaimId: sharedFrom.claimId, status: 'pending' as const, lastError: maker.error } : { ...base, calendarId: maker.calendarId, status: 'pending' as const, lastError: maker.error };
  const [row] = await tx.insert(bookingVideoLinks).values(values).onConflictDoNothing().returning();
  return row ?? null;
}

/** A booking's video link (or null). */
export async function videoLinkOf(db: Executor, claimId: string): Promise<BookingVideoLinkRow | null> {
  return selectVideoLink(db, claimId);
}

/** Several bookings' video links, by claim id. */
export async function videoLinksOf(db: Executor, claimIds: readonly string[]): Promise<Map<string, BookingVideoLinkRow>> {
  if (!claimIds.length) return new Map();
  const rows = await db.select().from(bookingVideoLinks).where(inArray(bookingVideoLinks.claimId, [...claimIds]));
  return new Map(rows.map((r) => [r.claimId, r]));
}

/**
 * A calendar whose owner connected it after a link was left without one: pending links of the
 * owner with no calendar are named to it (docs/calendars.md "Video links").
 */
async function adoptOrphans(db: Executor, calendar: { id: string; ownerId: string; type: string }): Promise<void> {
  const provider = (Object.keys(CALENDAR_TYPE) as (keyof typeof CALENDAR_TYPE)[]).find((p) => CALENDAR_TYPE[p] === calendar.type);
  if (!provider) return;
  const orphans = await db
    .select({ claimId: bookingVideoLinks.claimId })
    .from(bookingVideoLinks)
    .where(and(eq(bookingVideoLinks.ownerId, calendar.ownerId), eq(bookingVideoLinks.provider, provider), eq(bookingVideoLinks.status, 'pending'), isNull(bookingVideoLinks.madeByClaimId)));
  const ids = orphans.map((o) => o.claimId);
  if (ids.length) await db.update(bookingVideoLinks).set({ calendarId: calendar.id }).where(and(inArray(bookingVideoLinks.claimId, ids), eq(bookingVideoLinks.status, 'pending'), isNull(bookingVideoLinks.calendarId)));
}

type Net = <T>(p: Promise<T>) => Promise<T>;

/**
 * The write-back's share (sync.ts): make the pending video links named to this calendar, one
 * provider call each: the booking's event on this calendar is written (created, or updated
 * when it exists) with the conference request, and the answer is kept. A refusal counts an
 * attempt and keeps the error; the booking is never touched. Runs before the plain write-back,
 * so a booking with a pending link gets its event with the conference in one call.
 */
export async function makePendingVideoLinks(db: Executor, calendar: { id: string; ownerId: string; type: string }, provider: CalendarProvider, now: Date, signal: AbortSignal, net: Net, uidOf: (claimId: string) => string): Promise<void> {
  await adoptOrphans(db, calendar);
  const pending = await db
    .select({ link: bookingVideoLinks, startAt: claims.startAt, endAt: claims.endAt, title: claims.title, description: claims.description, sequence: claims.sequence, claimStatus: claims.status })
    .from(bookingVideoLinks)
    .innerJoin(claims, eq(claims.id, bookingVideoLinks.claimId))
    .where(and(eq(bookingVideoLinks.calendarId, calendar.id), eq(bookingVideoLinks.status, 'pending')));
  for (const p of pending) {
    if (p.claimStatus !== 'confirmed' || p.link.provider === 'link' || p.endAt <= now) continue;
    const [existing] = await db.select().from(calendarBookingEvents).where(and(eq(calendarBookingEvents.calendarId, calendar.id), eq(calendarBookingEvents.claimId, p.link.claimId)));
    const uid = existing?.uid ?? uidOf(p.link.claimId);
    let conference: ConferenceResult;
    try {
      const ref = await net(provider.putBookingEvent({ uid, start: p.startAt, end: p.endAt, title: p.title ?? 'Meeting', description: p.description, sequence: p.sequence, conference: p.link.provider }, existing ? { resource: existing.resource, etag: existing.etag } : null, signal));
      if (existing) await db.update(calendarBookingEvents).set({ resource: ref.resource, etag: ref.etag, sequence: p.sequence }).where(eq(calendarBookingEvents.id, existing.id));
      else await db.insert(calendarBookingEvents).values({ id: newId(), calendarId: calendar.id, claimId: p.link.claimId, uid, resource: ref.resource, etag: ref.etag, sequence: p.sequence, createdAt: now });
      conference = ref.conference ?? { status: 'failed', error: 'The calendar provider made no video meeting' };
    } catch (err) {
      // Credentials and outages fail the whole sync (recorded on the calendar); the link stays pending for the next one.
      if ((err as Error).name === 'ProviderAuthError' || (err as Error).name === 'ProviderUnavailableError') throw err;
      conference = { status: 'failed', error: (err as Error).message };
    }
    await settle(db, p.link, conference, now);
    if (conference.status === 'ready') await reviseInvited(db, p.link.claimId, calendar.id);
  }
}

/**
 * A link made after the booking's invitation went out: the booking's revision grows, so the
 * invitation sweep mails its attendees an update (same UID, that SEQUENCE) carrying the link
 * (invitations.ts updatePlan: the link is part of what the last mail said); so do a group's
 * other members that show this link. This calendar's event was just written with the link: it
 * is recorded at the new revision (no second write). Nothing for a booking no invitation went
 * out for: the first one carries the link.
 */
async function reviseInvited(db: Executor, claimId: string, calendarId: string): Promise<void> {
  const invited = db.select({ one: sql`1` }).from(bookingInvitations).where(and(eq(bookingInvitations.claimId, claims.id), eq(bookingInvitations.method, 'REQUEST')));
  const members = db.select({ id: bookingVideoLinks.claimId }).from(bookingVideoLinks).where(eq(bookingVideoLinks.madeByClaimId, claimId));
  const rows = await db
    .update(claims)
    .set({ sequence: sql`${claims.sequence} + 1` })
    .where(and(or(eq(claims.id, claimId), inArray(claims.id, members)), eq(claims.status, 'confirmed'), exists(invited)))
    .returning({ id: claims.id, sequence: claims.sequence });
  const row = rows.find((r) => r.id === claimId);
  if (row) await db.update(calendarBookingEvents).set({ sequence: row.sequence }).where(and(eq(calendarBookingEvents.calendarId, calendarId), eq(calendarBookingEvents.claimId, claimId)));
}

async function settle(db: Executor, link: BookingVideoLinkRow, c: ConferenceResult, now: Date): Promise<void> {
  const attempts = link.attempts + 1;
  const set =
    c.status === 'ready'
      ? { status: 'ready' as const, joinUrl: c.joinUrl, lastError: null, attempts, updatedAt: now }
      : { status: attempts >= MAX_VIDEO_ATTEMPTS ? ('failed' as const) : ('pending' as const), attempts, lastError: c.status === 'pending' ? 'The provider is still making the conference' : c.error, updatedAt: now };
  await db.update(bookingVideoLinks).set(c.status === 'ready' ? { ...set, conferenceId: c.conferenceId } : set).where(eq(bookingVideoLinks.claimId, link.claimId));
  // A group's other members show the organizer's link as it now is (docs/calendars.md "Video links").
  await db.update(bookingVideoLinks).set(set).where(eq(bookingVideoLinks.madeByClaimId, link.claimId));
}
