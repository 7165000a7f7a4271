import { setSpanAttributes, withSpan } from '@/server/observability/tracing';
import { and, eq, exists, gt, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingVideoLinks, calendarBookingEvents, calendarEvents, calendars, claims, owners } from '@/db/schema';
import { getConfig } from '@/server/config';
import { newId } from '../ids';
import { expandIcs } from './expand';
import { makePendingVideoLinks } from './videoLinks';
import { ProviderAuthError, providerFactory, type CalendarProvider } from './provider';
import { openSecret, sealSecret, needsRotation, type SealedSecret } from '../sealing';
import './caldav';
import './google';
import './microsoft';
import { metrics } from '@/server/observability/metrics';

/**
 * One sync of one provider calendar (docs/calendars.md "Freshness"):
 * 1. take the calendar's lease (one sync of a calendar at a time across
 *    instances: a conditional update of `sync_lease_until`);
 * 2. write back: the provider event of every confirmed future booking on
 *    this calendar is created, and the events of bookings no longer
 *    confirmed are deleted;
 * 3. read the provider's changes since the stored cursor, expand them with
 *    ical.js over [now - 1 day, now + horizon) and replace those resources'
 *    rows in the mirror, leaving out the UIDs of the service's own events;
 * 4. record the cursor and `last_synced_at`, release the lease.
 * A credential failure marks the calendar `reauth_required`; any other
 * failure is recorded in `last_sync_error` and the mirror stays as it was.
 */
export type SyncResult = { outcome: 'synced'; changed: number; removed: number } | { outcome: 'busy' } | { outcome: 'reauth_required'; error: string } | { outcome: 'failed'; error: string };

const LEASE_MS = 60_000;
const PAST_MS = 86_400_000;
const BOOKING_UID_DOMAIN = 'agent-scheduler';

export const bookingUid = (claimId: string) => `${claimId}@${BOOKING_UID_DOMAIN}`;

type CalendarRow = typeof calendars.$inferSelect;

function providerFor(calendar: Pick<CalendarRow, 'type' | 'settings' | 'credentials'>): CalendarProvider {
  const factory = providerFactory(calendar.type);
  if (!factory) throw new Error(`no provider for calendar type ${calendar.type}`);
  const credentials = calendar.credentials ? openSecret(calendar.credentials as SealedSecret) : {};
  return factory({ settings: calendar.settings, credentials });
}

export function syncCalendar(db: Executor, calendarId: string, now: Date, opts: { timeoutMs?: number } = {}): Promise<SyncResult> {
  // Its span (docs/operations.md "Traces"): the provider's requests and the mirror's statements inside.
  return withSpan('calendar.sync', { 'calendar.id': calendarId }, async (span) => {
    const seen: { provider?: string } = {};
    const result = await syncCalendarOnce(db, calendarId, now, opts, seen);
    span.setAttributes({ outcome: result.outcome });
    // Counted by provider (scheduler_calendar_sync_runs_total; `busy`: another instance holds the lease).
    const provider = seen.provider ?? 'unknown';
    const m = metrics();
    m.calendarSyncRuns.inc({ provider, outcome: result.outcome });
    if (result.outcome === 'failed' || result.outcome === 'reauth_required') m.calendarSyncErrors.inc({ provider });
    return result;
  });
}

async function syncCalendarOnce(db: Executor, calendarId: string, now: Date, opts: { timeoutMs?: number }, seen: { provider?: string }): Promise<SyncResult> {
  const config = getConfig();
  const [calendar] = await db
    .update(calendars)
    .set({ syncLeaseUntil: new Date(now.getTime() + LEASE_MS) })
    .where(and(eq(calendars.id, calendarId), eq(calendars.status, 'active'), or(isNull(calendars.syncLeaseUntil), lt(calendars.syncLeaseUntil, now))))
    .returning();
  if (!calendar) return { outcome: 'busy' };
  seen.provider = calendar.type;
  const [owner] = await db.select({ timeZone: owners.timeZone }).from(owners).where(eq(owners.id, calendar.ownerId));
  const controller = new AbortController();
  const timeoutMs = opts.timeoutMs ?? config.calendarSyncTimeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`provider did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  timeout.catch(() => {});
  // Only provider calls race the timeout; database work is never abandoned half-way.
  const net = <T>(p: Promise<T>) => Promise.race([p, timeout]);
  setSpanAttributes({ 'calendar.provider': calendar.type, 'owner.id': calendar.ownerId });
  try {
    const provider = providerFor(calendar);
    const result = await run(db, calendar, owner.timeZone, provider, now, controller.signal, config.calendarHorizonDays, net);
    return { outcome: 'synced', changed: result.changed, removed: result.removed };
  } catch (err) {
    const message = (err as Error).message;
    const auth = err instanceof ProviderAuthError;
    await db
      .update(calendars)
      .set({ lastSyncError: message, syncLeaseUntil: null, updatedAt: now, ...(auth ? { status: 'reauth_required' as const } : {}) })
      .where(eq(calendars.id, calendar.id));
    return auth ? { outcome: 'reauth_required', error: message } : { outcome: 'failed', error: message };
  } finally {
    clearTimeout(timer);
  }
}

type Net = <T>(p: Promise<T>) => Promise<T>;

async function run(db: Executor, calendar: CalendarRow, timeZone: string, provider: CalendarProvider, now: Date, signal: AbortSignal, horizonDays: number, net: Net) {
  await writeBack(db, calendar, provider, now, signal, net);
  const range = { start: new Date(now.getTime() - PAST_MS), end: new Date(now.getTime() + horizonDays * 86_400_000) };
  // A cursor from a narrower window misses series instances that have come into range since: start over.
  const prev = calendar.syncState as { horizonEnd?: number; cursor?: Record<string, unknown> } | null;
  const fresh = !prev?.cursor || (prev.horizonEnd ?? 0) < range.end.getTime() - 86_400_000;
  const listed = await net(provider.listEvents(range, fresh ? null : prev!.cursor!, signal));
  // The service's own events: by UID, and by resource where the provider assigns UIDs itself (Microsoft Graph).
  const ownRows = await db.select({ uid: calendarBookingEvents.uid, resource: calendarBookingEvents.resource }).from(calendarBookingEvents).where(eq(calendarBookingEvents.calendarId, calendar.id));
  const own = new Set(ownRows.map((r) => r.uid));
  const ownResources = new Set(ownRows.map((r) => r.resource));
  const touched = [...listed.removed, ...listed.changed.map((o) => o.resource)];
  const rows: (typeof calendarEvents.$inferInsert)[] = [];
  for (const obj of listed.changed) {
    if (ownResources.has(obj.resource)) continue;
    for (const b of expandIcs(obj.ics, { start: range.start.getTime(), end: range.end.getTime() }, timeZone)) {
      if (own.has(b.uid)) continue;
      rows.push({ id: newId(), calendarId: calendar.id, ownerId: calendar.ownerId, resource: obj.resource, uid: b.uid, startAt: new Date(b.start), endAt: new Date(b.end) });
    }
  }
  const state = { horizonEnd: fresh ? range.end.getTime() : prev!.horizonEnd, cursor: listed.state };
  const renewed = provider.renewedCredentials?.() ?? null;
  const rotate = renewed
    ? sealSecret(renewed)
    : calendar.credentials && needsRotation(calendar.credentials as SealedSecret)
      ? sealSecret(openSecret(calendar.credentials as SealedSecret))
      : undefined;
  // Readers see the mirror before or after this sync, never half of it.
  await db.transaction(async (tx) => {
    if (fresh || listed.full) await tx.delete(calendarEvents).where(eq(calendarEvents.calendarId, calendar.id));
    else if (touched.length) await tx.delete(calendarEvents).where(and(eq(calendarEvents.calendarId, calendar.id), inArray(calendarEvents.resource, touched)));
    for (let i = 0; i < rows.length; i += 1000) await tx.insert(calendarEvents).values(rows.slice(i, i + 1000));
    await tx
      .update(calendars)
      .set({ syncState: state, lastSyncedAt: now, lastSyncError: null, syncLeaseUntil: null, updatedAt: now, ...(rotate ? { credentials: rotate } : {}) })
      .where(eq(calendars.id, calendar.id));
  });
  return { changed: listed.changed.length, removed: listed.removed.length };
}

/**
 * Create the provider events of this calendar's confirmed future bookings; delete those of bookings no longer confirmed.
 * The bookings are found through the owner's index (a calendar's bookings are its owner's): claims have no index by
 * calendar, and every sync runs this, so it must not read other owners' claims (docs/benchmarks/history/2026-11-25-connected-calendars.md).
 */
async function writeBack(db: Executor, calendar: CalendarRow, provider: CalendarProvider, now: Date, signal: AbortSignal, net: Net) {
  // Pending video links first (docs/calendars.md "Video links"): their bookings' events are written with the conference request.
  await makePendingVideoLinks(db, calendar, provider, now, signal, net, bookingUid);
  const pending = await db
    .select({ id: claims.id, startAt: claims.startAt, endAt: claims.endAt, title: claims.title, description: claims.description, sequence: claims.sequence })
    .from(claims)
    .leftJoin(calendarBookingEvents, and(eq(calendarBookingEvents.claimId, claims.id), eq(calendarBookingEvents.calendarId, calendar.id)))
    .where(and(eq(claims.ownerId, calendar.ownerId), eq(claims.calendarId, calendar.id), eq(claims.kind, 'booking'), eq(claims.status, 'confirmed'), gt(claims.endAt, now), isNull(calendarBookingEvents.id)));
  for (const b of pending) {
    const uid = bookingUid(b.id);
    const ref = await net(provider.putBookingEvent({ uid, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', description: b.description, sequence: b.sequence }, null, signal));
    await db.insert(calendarBookingEvents).values({ id: newId(), calendarId: calendar.id, claimId: b.id, uid, resource: ref.resource, etag: ref.etag, sequence: b.sequence, createdAt: now });
  }
  // Bookings moved or edited since their event was written (a newer revision): the same event is updated, never a second one made.
  const changed = await db
    .select({ eventId: calendarBookingEvents.id, uid: calendarBookingEvents.uid, resource: calendarBookingEvents.resource, etag: calendarBookingEvents.etag, startAt: claims.startAt, endAt: claims.endAt, title: claims.title, description: claims.description, sequence: claims.sequence })
    .from(calendarBookingEvents)
    .innerJoin(claims, eq(claims.id, calendarBookingEvents.claimId))
    .where(and(eq(calendarBookingEvents.calendarId, calendar.id), eq(claims.status, 'confirmed'), gt(claims.sequence, calendarBookingEvents.sequence)));
  for (const b of changed) {
    const ref = await net(provider.putBookingEvent({ uid: b.uid, start: b.startAt, end: b.endAt, title: b.title ?? 'Meeting', description: b.description, sequence: b.sequence }, { resource: b.resource, etag: b.etag }, signal));
    await db.update(calendarBookingEvents).set({ resource: ref.resource, etag: ref.etag, sequence: b.sequence }).where(eq(calendarBookingEvents.id, b.eventId));
  }
  const gone = await db
    .select({ id: calendarBookingEvents.id, resource: calendarBookingEvents.resource, etag: calendarBookingEvents.etag })
    .from(calendarBookingEvents)
    .innerJoin(claims, eq(claims.id, calendarBookingEvents.claimId))
    .where(and(eq(calendarBookingEvents.calendarId, calendar.id), ne(claims.status, 'confirmed')));
  for (const e of gone) {
    await net(provider.deleteBookingEvent({ resource: e.resource, etag: e.etag }, signal));
    await db.delete(calendarBookingEvents).where(eq(calendarBookingEvents.id, e.id));
  }
}

/** Provider calendars due for a background sync (not synced within `intervalMs`, lease free). */
export async function dueCalendars(db: Executor, now: Date, intervalMs: number, limit = 50): Promise<string[]> {
  const rows = await db
    .select({ id: calendars.id })
    .from(calendars)
    .where(
      and(
        ne(calendars.type, 'internal'),
        eq(calendars.status, 'active'),
        // A calendar with a video link to make is due at once (docs/calendars.md "Video links").
        or(isNull(calendars.lastSyncedAt), lt(calendars.lastSyncedAt, new Date(now.getTime() - intervalMs)), exists(db.select({ one: sql`1` }).from(bookingVideoLinks).where(and(eq(bookingVideoLinks.calendarId, calendars.id), eq(bookingVideoLinks.status, 'pending'))))),
        or(isNull(calendars.syncLeaseUntil), lt(calendars.syncLeaseUntil, now)),
      ),
    )
    .orderBy(sql`${calendars.lastSyncedAt} asc nulls first`)
    .limit(limit);
  return rows.map((r) => r.id);
}

/** One round of the background sync: every due calendar, one after another (each under its lease). */
export async function syncDueCalendars(db: Executor, now: Date, intervalMs: number): Promise<Record<string, SyncResult>> {
  const out: Record<string, SyncResult> = {};
  for (const id of await dueCalendars(db, now, intervalMs)) out[id] = await syncCalendar(db, id, now);
  return out;
}

/**
 * When the next provider calendar falls due for its background sync (`intervalMs` after its last
 * sync; a calendar never synced is due now), or null when there is none: the idle loop of
 * server/calendarSync.ts wakes by then (docs/operations.md "Idle").
 */
export async function nextCalendarDue(db: Executor, intervalMs: number): Promise<Date | null> {
  const [row] = await db
    .select({ last: sql<string | null>`min(coalesce(${calendars.lastSyncedAt}, 'epoch'::timestamptz))`, n: sql<number>`count(*)::int` })
    .from(calendars)
    .where(and(ne(calendars.type, 'internal'), eq(calendars.status, 'active')));
  if (!row || Number(row.n) === 0 || !row.last) return null;
  return new Date(new Date(row.last).getTime() + intervalMs);
}
