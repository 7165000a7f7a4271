import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { agents, auditLog, claims, claimSeries, meetingClasses, owners } from '@/db/schema';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import { localIso } from '../scheduling/localSpan';
import { recurrenceInWords } from '../scheduling/seriesWords';
import type { Reviewer } from './week';

/**
 * A recurring series on the owner's dashboard (docs/dashboard.md "Recurring series"): one meeting
 * with its occurrences. The occurrences booked are the owner's claims sharing the series_id, each
 * with its status now (confirmed, cancelled, preempted); those refused when the series was booked
 * (min_occurrences let the rest through) are read off the series' refusal audit rows, which the
 * same transaction wrote at the claims' creation time; the rule comes from those rows' details
 * (claims/seriesService.ts), in the owner's zone, with its words.
 */

export type SeriesOccurrenceView = {
  /** Its place in the series as booked (0 = the first), null when the audit rows do not tell. */
  index: number | null;
  /** Null for an occurrence refused at booking (it has no booking). */
  booking_id: string | null;
  start: string;
  end: string;
  /** Its owner-local date (YYYY-MM-DD): the week it shows on. */
  date: string;
  status: 'confirmed' | 'cancelled' | 'preempted' | 'refused';
  /** Why it was cancelled (the reason given) or refused (the arbiter's reason in words), when known. */
  reason: string | null;
};

export type SeriesDetails = {
  series_id: string;
  title: string | null;
  meeting_class: string | null;
  agent: { id: string; name: string } | null;
  time_zone: string;
  /** The RRULE as booked, null for a series booked before the service kept it (claim_series). */
  recurrence: string | null;
  /** The rule in plain words: "Weekly on Wednesday, 6 times". */
  rule_words: string | null;
  occurrences: SeriesOccurrenceView[];
  counts: { confirmed: number; cancelled: number; preempted: number; refused: number };
};

/**
 * What a booking's details say of its series: the rule in words, the occurrence's place in it
 * (1-based, of `total` occurrences booked or refused), and how many are still booked from it on
 * and in all (what a cancel of this and the following, or of the series, would cancel).
 */
export type SeriesSummary = { series_id: string; rule_words: string | null; position: number; total: number; booked_from_here: number; booked: number };

const notFound = () => new DomainError('BOOKING_NOT_FOUND', 'Series not found');

/** The owner's occurrences of a series, by start, with names. */
function seriesClaims(db: Executor, reviewer: Reviewer, seriesId: string) {
  return db
    .select({ c: claims, className: meetingClasses.name, agentName: agents.name, timeZone: owners.timeZone })
    .from(claims)
    .innerJoin(owners, eq(owners.id, claims.ownerId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .leftJoin(agents, eq(agents.id, claims.agentId))
    .where(and(eq(claims.seriesId, seriesId), eq(claims.customerId, reviewer.customerId), eq(claims.ownerId, reviewer.ownerId), eq(claims.kind, 'booking')))
    .orderBy(asc(claims.startAt));
}

/** The series' booking.create audit rows of its decision (accepted and refused occurrences alike). */
function decisionRows(db: Executor, reviewer: Reviewer, seriesId: string, decidedAt: Date) {
  return db
    .select({ outcome: auditLog.outcome, bookingId: auditLog.bookingId, startAt: auditLog.startAt, endAt: auditLog.endAt, reason: auditLog.reason, details: auditLog.details })
    .from(auditLog)
    .where(
      and(
        eq(auditLog.ownerId, reviewer.ownerId),
        eq(auditLog.at, decidedAt),
        eq(auditLog.customerId, reviewer.customerId),
        eq(auditLog.action, 'booking.create'),
        sql`${auditLog.details}->>'series_id' = ${seriesId}`,
      ),
    );
}

/** Why the arbiter refused an occurrence (the rule that failed, else the refusal's reason code), in the owner's words. */
const REFUSAL_WORDS: Record<string, string> = {
  NO_CAPACITY: 'the time was already taken',
  WORKING_HOURS: 'outside your working hours',
  OFF_DAY: 'a day you do not work',
  OUT_OF_OFFICE: 'you were out of office',
  SACRED_MEETING: 'a protected meeting was there',
  MAX_DAILY_HOURS: 'your daily meeting hours were full',
  PERMISSION_DENIED_PREEMPT: 'the time was taken and the agent may not bump it',
  PAST_TIME: 'the time had passed',
};
const refusalWords = (code: string | null) => (code ? (REFUSAL_WORDS[code] ?? code.replace(/_/g, ' ').toLowerCase()) : null);

const occurrenceOf = (details: Record<string, unknown> | null) => (typeof details?.occurrence === 'number' ? details.occurrence : null);

/** The series the id names (a series_id, or the id of one of its occurrences) as the owner sees it. */
export async function seriesDetails(db: Executor, reviewer: Reviewer, id: string): Promise<SeriesDetails> {
  if (!isUuid(id)) throw notFound();
  const lower = id.toLowerCase();
  const [named] = await db
    .select({ seriesId: claims.seriesId })
    .from(claims)
    .where(and(eq(claims.id, lower), eq(claims.customerId, reviewer.customerId), eq(claims.ownerId, reviewer.ownerId)));
  const seriesId = named?.seriesId ?? lower;
  const rows = await seriesClaims(db, reviewer, seriesId);
  if (!rows.length) throw notFound();
  const first = rows[0];
  const timeZone = first.timeZone;
  const [audit, [asked]] = await Promise.all([
    decisionRows(db, reviewer, seriesId, first.c.createdAt),
    db.select({ recurrence: claimSeries.recurrence, firstStart: claimSeries.firstStart }).from(claimSeries).where(and(eq(claimSeries.id, seriesId), eq(claimSeries.customerId, reviewer.customerId))),
  ]);
  const indexOf = new Map(audit.filter((a) => a.outcome === 'accept' && a.bookingId).map((a) => [a.bookingId!, occurrenceOf(a.details)]));
  const booked: SeriesOccurrenceView[] = rows.map(({ c }) => ({
    index: indexOf.get(c.id) ?? null,
    booking_id: c.id,
    start: c.startAt.toISOString(),
    end: c.endAt.toISOString(),
    date: localIso(c.startAt.getTime(), timeZone).slice(0, 10),
    status: c.status as SeriesOccurrenceView['status'],
    reason: c.status === 'confirmed' ? null : c.statusReason,
  }));
  const refused: SeriesOccurrenceView[] = audit
    .filter((a) => a.outcome !== 'accept' && a.startAt && a.endAt)
    .map((a) => ({ index: occurrenceOf(a.details), booking_id: null, start: a.startAt!.toISOString(), end: a.endAt!.toISOString(), date: localIso(a.startAt!.getTime(), timeZone).slice(0, 10), status: 'refused', reason: refusalWords(typeof a.details?.failed_reason === 'string' ? a.details.failed_reason : a.reason) }));
  const occurrences = [...booked, ...refused].sort((a, b) => a.start.localeCompare(b.start));
  // The rule as asked (claim_series, written with the series; docs/calendars.md "Series invitations"), from its first occurrence.
  const recurrence = asked?.recurrence ?? null;
  const ruleStart = asked ? asked.firstStart.getTime() : Date.parse(occurrences[0].start);
  const count = (s: SeriesOccurrenceView['status']) => occurrences.filter((o) => o.status === s).length;
  return {
    series_id: seriesId,
    title: first.c.title,
    meeting_class: first.className,
    agent: first.c.agentId && first.agentName ? { id: first.c.agentId, name: first.agentName } : null,
    time_zone: timeZone,
    recurrence,
    rule_words: recurrence ? recurrenceInWords(recurrence, ruleStart, timeZone) : null,
    occurrences,
    counts: { confirmed: count('confirmed'), cancelled: count('cancelled'), preempted: count('preempted'), refused: count('refused') },
  };
}

/** A booking's place in its series, for its details; null outside a series. */
export async function seriesSummary(db: Executor, reviewer: Reviewer, claimId: string, seriesId: string | null): Promise<SeriesSummary | null> {
  if (!seriesId) return null;
  const series = await seriesDetails(db, reviewer, seriesId);
  const here = series.occurrences.findIndex((o) => o.booking_id === claimId);
  const booked = (list: SeriesOccurrenceView[]) => list.filter((o) => o.status === 'confirmed').length;
  return { series_id: seriesId, rule_words: series.rule_words, position: here + 1, total: series.occurrences.length, booked_from_here: booked(series.occurrences.slice(here)), booked: booked(series.occurrences) };
}
