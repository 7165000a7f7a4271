import ICAL from 'ical.js';
import { and, asc, eq, exists, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { claims, claimSeries, owners, seriesInvitations, type SentSeriesInvitation } from '@/db/schema';
import { expandSeries } from '../scheduling/series';
import { dueColumns, mailAll, type Due } from './invitationDelivery';
import { invitationIcs, UNTITLED, type InvitationInput } from './invitationIcs';
import { planSeriesUpdate, type SeriesPlan } from './seriesInvitationPlan';
import { bookingUid } from './sync';

/**
 * A recurring series' invitation (docs/calendars.md "Series invitations"): ONE mail per attendee
 * for the whole series, whose ICS is one VEVENT with the series' RRULE in the owner's zone
 * (DTSTART;TZID and its VTIMEZONE), the series' UID, and an EXDATE for each instance of the rule
 * that is not booked (refused at booking time with min_occurrences, or cancelled before the
 * mail). Then, as occurrences are cancelled or moved, the update seriesInvitationPlan.ts says
 * (CANCEL with RECURRENCE-ID, a REQUEST with UNTIL or EXDATE, an occurrence's VEVENT with
 * RECURRENCE-ID, CANCEL of the series), each once, SEQUENCE growing. Sent by the invitation sweep
 * (invitations.ts) after the series committed; its occurrences get no invitation of their own.
 */

type SeriesRow = typeof claimSeries.$inferSelect;
type Occurrence = Due & { status: string };

/** How long after its last mail a series' occurrences are looked at for changes (a claim's transaction commits well within it). */
const CHANGE_WINDOW_MS = 5 * 60_000;

/** The series' occurrences with their owner, in start order. */
function occurrencesOf(db: Executor, seriesId: string): Promise<Occurrence[]> {
  return db
    .select({ ...dueColumns, typeTitle: sql<string | null>`null` })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .where(and(eq(claims.seriesId, seriesId), eq(claims.kind, 'booking')))
    .orderBy(asc(claims.startAt));
}

/** The rule's instances (epoch ms starts) as the series was booked. */
function instancesOf(s: SeriesRow): number[] {
  return expandSeries({ rrule: s.recurrence, start: s.firstStart.getTime(), end: s.firstEnd.getTime(), timeZone: s.timeZone }).map((o) => o.start);
}

/** The rule ending at `until` (an instance's start): COUNT and UNTIL dropped, UNTIL in UTC as RFC 5545 asks of a zoned DTSTART. */
function ruleUntil(recurrence: string, until: string | null): string {
  const rule = recurrence.trim().replace(/^RRULE:/i, '');
  if (!until) return rule;
  const parts = rule.split(';').filter((p) => !/^(COUNT|UNTIL)=/i.test(p));
  return [...parts, `UNTIL=${until.replace(/[-:]/g, '').replace(/\.\d+/, '')}`].join(';');
}

/** The ICS of `master` with further VEVENTs (moved occurrences, each with RECURRENCE-ID) of the same series. */
function withOverrides(master: InvitationInput, overrides: SeriesPlan['overrides']): string {
  const cal = new ICAL.Component(ICAL.parse(invitationIcs(master)));
  for (const o of overrides) {
    const one = new ICAL.Component(ICAL.parse(invitationIcs({ ...master, start: new Date(o.start), end: new Date(o.end), series: { ...master.series!, rrule: undefined, exdates: undefined, recurrenceId: new Date(o.rid) } })));
    cal.addSubcomponent(one.getFirstSubcomponent('vevent')!);
  }
  return cal.toString() + '\r\n';
}

type Common = Omit<InvitationInput, 'method'>;

/** What every mail of the series shares: UID, organizer, attendees, title, the zone and span of its times. */
function common(s: SeriesRow, b: Occurrence, sequence: number, attendees: Due['attendees'], instances: number[], now: Date): Common {
  const span = { from: s.firstStart.getTime(), to: instances[instances.length - 1] + (s.firstEnd.getTime() - s.firstStart.getTime()) };
  return { uid: bookingUid(s.id), sequence, organizer: { email: b.ownerEmail, name: b.ownerName }, attendees, start: s.firstStart, end: s.firstEnd, title: b.title ?? UNTITLED, now, series: { timeZone: s.timeZone, span } };
}

/** The series' own VEVENT: RRULE (cut at UNTIL), EXDATEs, and for the mail how many are booked and the last. */
function masterOf(c: Common, s: SeriesRow, sent: SentSeriesInvitation, instances: number[]): Common {
  const excluded = new Set(sent.exdates);
  const kept = instances.map((t) => new Date(t).toISOString()).filter((t) => !excluded.has(t) && (!sent.until || t <= sent.until));
  return { ...c, series: { ...c.series!, rrule: ruleUntil(s.recurrence, sent.until), exdates: sent.exdates.map((x) => new Date(x)), occurrences: { count: kept.length, last: new Date(kept[kept.length - 1] ?? c.start) } } };
}

/** Send the first invitation of series booked in the last day (up to `limit`); returns how many. */
async function inviteNewSeries(db: Executor, now: Date, limit: number, customerId?: string): Promise<number> {
  const withAttendees = db
    .select({ one: sql`1` })
    .from(claims)
    .where(and(eq(claims.seriesId, claimSeries.id), eq(claims.status, 'confirmed'), gt(claims.endAt, now), sql`jsonb_array_length(${claims.attendees}) > 0`));
  const fresh = await db
    .select({ s: claimSeries })
    .from(claimSeries)
    .leftJoin(seriesInvitations, eq(seriesInvitations.seriesId, claimSeries.id))
    .where(and(customerId ? eq(claimSeries.customerId, customerId) : undefined, gt(claimSeries.createdAt, new Date(now.getTime() - 86_400_000)), isNull(seriesInvitations.seriesId), exists(withAttendees)))
    .limit(limit);
  let sent = 0;
  for (const { s } of fresh) {
    const rows = await occurrencesOf(db, s.id);
    const live = rows.filter((r) => r.status === 'confirmed');
    const b = live.find((r) => r.attendees.length > 0);
    if (!b) continue;
    const instances = instancesOf(s);
    const at = new Map(rows.map((r) => [r.startAt.getTime(), r]));
    const occurrences: SentSeriesInvitation['occurrences'] = {};
    const exdates: string[] = [];
    for (const t of instances) {
      const r = at.get(t);
      if (r?.status === 'confirmed') occurrences[r.id] = { rid: new Date(t).toISOString(), start: r.startAt.toISOString(), end: r.endAt.toISOString() };
      else exdates.push(new Date(t).toISOString());
    }
    const state: SentSeriesInvitation = { attendees: b.attendees.map((a) => a.email.toLowerCase()), occurrences, exdates, until: null };
    // Record first: a crash between the two loses one courtesy mail rather than sending it twice.
    const [claimed] = await db.insert(seriesInvitations).values({ seriesId: s.id, uid: bookingUid(s.id), sequence: 0, method: 'REQUEST', sentAt: now, sent: state }).onConflictDoNothing().returning();
    if (!claimed) continue;
    const c = common(s, b, 0, b.attendees, instances, now);
    await mailAll(db, b, { method: 'REQUEST', ...masterOf(c, s, state, instances) });
    sent++;
  }
  return sent;
}

/** Send what changed in series already invited (up to `limit`): cancels and updates. */
async function updateSeries(db: Executor, now: Date, limit: number, customerId?: string): Promise<{ cancels: number; updates: number }> {
  const changed = db
    .select({ one: sql`1` })
    .from(claims)
    .where(and(eq(claims.seriesId, seriesInvitations.seriesId), gt(claims.updatedAt, sql`${seriesInvitations.sentAt} - interval '${sql.raw(String(CHANGE_WINDOW_MS / 1000))} seconds'`)));
  const due = await db
    .select({ s: claimSeries, inv: seriesInvitations })
    .from(seriesInvitations)
    .innerJoin(claimSeries, eq(claimSeries.id, seriesInvitations.seriesId))
    .where(and(customerId ? eq(claimSeries.customerId, customerId) : undefined, eq(seriesInvitations.method, 'REQUEST'), exists(changed)))
    .limit(limit);
  let cancels = 0;
  let updates = 0;
  for (const { s, inv } of due) {
    const rows = await occurrencesOf(db, s.id);
    const plan = planSeriesUpdate(inv.sent, rows.map((r) => ({ id: r.id, start: r.startAt, end: r.endAt, status: r.status })), s.firstEnd.getTime() - s.firstStart.getTime());
    if (!plan) continue;
    const sequence = inv.sequence + 1;
    const [claimed] = await db
      .update(seriesInvitations)
      .set({ sequence, method: plan.cancelSeries ? 'CANCEL' : 'REQUEST', sentAt: now, sent: plan.next })
      .where(and(eq(seriesInvitations.seriesId, s.id), eq(seriesInvitations.sequence, inv.sequence), eq(seriesInvitations.method, 'REQUEST')))
      .returning();
    if (!claimed) continue;
    const invited = new Set(inv.sent.attendees);
    const b = rows.find((r) => r.status === 'confirmed') ?? rows[0];
    // Only who was invited hears of it, with the names the occurrences carry.
    const byEmail = new Map(rows.flatMap((r) => r.attendees).map((a) => [a.email.toLowerCase(), a]));
    const attendees = inv.sent.attendees.map((e) => byEmail.get(e) ?? { email: e }).filter((a) => invited.has(a.email.toLowerCase()));
    const instances = instancesOf(s);
    const c = common(s, b, sequence, attendees, instances, now);
    const reasonOf = (rid: string) => rows.find((r) => plan.next.occurrences[r.id]?.rid === rid)?.reason ?? null;
    if (plan.cancelSeries) {
      cancels++;
      await mailAll(db, b, { method: 'CANCEL', ...c, reason: b.reason });
      continue;
    }
    if (plan.cancelOccurrence) {
      cancels++;
      const o = plan.cancelOccurrence;
      await mailAll(db, b, { method: 'CANCEL', ...c, start: new Date(o.start), end: new Date(o.end), reason: reasonOf(o.rid), series: { ...c.series!, recurrenceId: new Date(o.rid) } });
    }
    if (plan.updateSeries) {
      updates++;
      const master = masterOf(c, s, plan.next, instances);
      await mailAll(db, b, { method: 'REQUEST', update: true, ...master }, attendees, (i) => withOverrides(i, plan.overrides));
    } else if (plan.overrides.length) {
      updates++;
      // Only the moved occurrences: each its own VEVENT with RECURRENCE-ID (RFC 5546 3.2.2), the mail's time the first's.
      const [first, ...more] = plan.overrides;
      const one: InvitationInput = { ...c, method: 'REQUEST', update: true, start: new Date(first.start), end: new Date(first.end), reason: reasonOf(first.rid), series: { ...c.series!, recurrenceId: new Date(first.rid) } };
      await mailAll(db, b, { ...one, method: 'REQUEST' }, attendees, (i) => withOverrides(i, more));
    }
  }
  return { cancels, updates };
}

/** The series' invitations due now (docs/calendars.md "Series invitations"); invitations.ts sendDueInvitations calls it. */
export async function sendDueSeriesInvitations(db: Executor, now: Date, limit: number, customerId?: string): Promise<{ requests: number; cancels: number; updates: number }> {
  const requests = await inviteNewSeries(db, now, limit, customerId);
  return { requests, ...(await updateSeries(db, now, limit, customerId)) };
}

