import { and, eq } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import type { Executor } from '@/db/client';
import { owners } from '@/db/schema';
import { nextMeetingStart, weekClaims } from '@/db/hot/week';
import { DomainError } from '../errors';
import { ownerRules } from '../claims';
import { hardBlockIntervals, isSacred, workingIntervals } from '../scheduling';
import { bookedMinutesOnLocalDay } from '../scheduling/timeRules';
import type { Claim, Interval } from '../scheduling';
import { coHosts, type CoHost } from './hosts';

/**
 * The owner's week for the dashboard (docs/dashboard.md): seven owner-local
 * days from Monday, the working hours and hard blocks as instants, every
 * booking (confirmed, cancelled or preempted) and every unexpired active hold
 * touching the week, and each day's booked hours against the daily limit,
 * counted as arbitration counts them. A group's claim names its other hosts (hosts.ts).
 */

export type Reviewer = { ownerId: string; customerId: string };
export type Span = { start: string; end: string };

export type WeekEvent = {
  id: string;
  kind: 'booking' | 'hold';
  status: 'confirmed' | 'active' | 'cancelled' | 'preempted';
  start: string;
  end: string;
  title: string | null;
  meeting_class: string | null;
  priority: number | null;
  sacred: boolean;
  source: 'agent' | 'public' | 'provider';
  agent: string | null;
  attendees: number;
  /** A group's hold or booking (docs/groups.md): the group's id, else null. */
  group_id: string | null;
  /** The group's other hosts (name, email, their member's status); empty for a single owner's. */
  co_hosts: CoHost[];
  /** An occurrence of a recurring series (docs/dashboard.md "Recurring series"): the series' id, else null. */
  series_id: string | null;
};

type WeekDay = {
  /** Owner-local date, YYYY-MM-DD. */
  date: string;
  weekday: string;
  start: string;
  end: string;
  working: Span[];
  blocks: Span[];
  booked_minutes: number;
};

export type WeekView = {
  owner: { email: string; name: string | null; time_zone: string; max_daily_meeting_hours: number | null; working_hours_configured: boolean };
  week_start: string;
  previous_week: string;
  next_week: string;
  /** The Monday of the week containing today, and today (owner's zone). */
  this_week: string;
  /** No week was asked for and nothing is left this week: this is the week of the owner's next meeting. */
  next_meeting_week: boolean;
  today: string;
  days: WeekDay[];
  events: WeekEvent[];
};

const WEEKDAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const iso = (ms: number) => new Date(ms).toISOString();
const spans = (list: Interval[]): Span[] => list.map((i) => ({ start: iso(i.start), end: iso(i.end) }));

async function reviewerOwner(db: Executor, reviewer: Reviewer) {
  const [owner] = await db
    .select()
    .from(owners)
    .where(and(eq(owners.id, reviewer.ownerId), eq(owners.customerId, reviewer.customerId)))
    .limit(1);
  if (!owner) throw new DomainError('OWNER_NOT_FOUND', 'No such calendar owner');
  return owner;
}

function mondayOf(date: Temporal.PlainDate): Temporal.PlainDate {
  return date.subtract({ days: date.dayOfWeek - 1 });
}

const localDate = (timeZone: string, at: Date) => Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(timeZone).toPlainDate();

/** The Monday of the week to show: the week containing `weekOf` (a local date YYYY-MM-DD, or an instant), else the current one. */
function weekStartFor(timeZone: string, weekOf: string | Date | undefined, now: Date): { start: Temporal.PlainDate; today: Temporal.PlainDate } {
  const today = localDate(timeZone, now);
  let day = today;
  if (weekOf instanceof Date) day = localDate(timeZone, weekOf);
  else if (weekOf) {
    try {
      day = Temporal.PlainDate.from(weekOf, { overflow: 'reject' });
    } catch {
      throw new DomainError('invalid_request', 'week must be a date YYYY-MM-DD', { details: [{ field: 'week', issue: 'not a date' }] });
    }
  }
  return { start: mondayOf(day), today };
}

/** With no week asked for: the start of the next meeting when it falls after this week (nothing is left this week), else null. */
async function weekOfNextMeeting(db: Executor, ownerId: string, timeZone: string, now: Date): Promise<Date | null> {
  const next = await nextMeetingStart(db, ownerId, now);
  if (!next) return null;
  const thisWeek = weekStartFor(timeZone, undefined, now).start;
  return weekStartFor(timeZone, next, now).start.equals(thisWeek) ? null : next;
}

export async function ownerWeek(db: Executor, reviewer: Reviewer, weekOf: string | Date | undefined, now: Date): Promise<WeekView> {
  const owner = await reviewerOwner(db, reviewer);
  const tz = owner.timeZone;
  const jumped = weekOf === undefined ? await weekOfNextMeeting(db, owner.id, tz, now) : null;
  const { start: monday, today } = weekStartFor(tz, jumped ?? weekOf, now);
  const dates = Array.from({ length: 8 }, (_, i) => monday.add({ days: i }));
  const bounds = dates.map((d) => d.toZonedDateTime({ timeZone: tz }).epochMilliseconds);
  const from = bounds[0];
  const to = bounds[7];
  const rules = ownerRules(owner);
  const working = rules.workingHours ? workingIntervals(rules, from, to) : [];
  const blocks = hardBlockIntervals(rules, from, to);

  const rows = await weekClaims(db, owner.id, new Date(from), new Date(to), now);
  const nowMs = now.getTime();
  const hostsOf = await coHosts(db, owner.id, rows.map((c) => c.groupId), now);
  const events: WeekEvent[] = rows.map((c) => ({
    id: c.id,
    kind: c.kind,
    status: c.status as WeekEvent['status'],
    start: iso(c.start),
    end: iso(c.end),
    title: c.title,
    meeting_class: c.className,
    priority: c.priority,
    sacred: c.kind === 'booking' && c.status === 'confirmed' && isSacred({ createdAt: c.createdAt, externalAccepted: c.externalAccepted, source: c.source }, c.sacredAge, nowMs),
    source: c.source,
    agent: c.agentName,
    attendees: c.attendeeCount,
    group_id: c.groupId,
    co_hosts: hostsOf(c.groupId, c.kind),
    series_id: c.seriesId,
  }));
  // The daily limit counts active claims only, as arbitration does (a window hold counts its duration).
  const counted: Claim[] = rows
    .filter((c) => c.status === 'confirmed' || c.status === 'active')
    .map((c) => ({
      id: c.id,
      kind: c.kind,
      start: c.start,
      end: c.end,
      countedMinutes: c.kind === 'hold' && c.holdScope === 'window' && c.durationMinutes ? c.durationMinutes : (c.end - c.start) / 60_000,
      priority: 0,
      sacred: false,
      // The ranges of an all_free window hold count its duration once.
      group: c.partOfHoldId ?? (c.coverage === 'all_free' ? c.id : undefined),
    }));
  const clip = (list: Interval[], s: number, e: number) =>
    list.filter((i) => i.start < e && i.end > s).map((i) => ({ start: Math.max(i.start, s), end: Math.min(i.end, e) }));

  const days: WeekDay[] = dates.slice(0, 7).map((d, i) => ({
    date: d.toString(),
    weekday: WEEKDAY_NAMES[i],
    start: iso(bounds[i]),
    end: iso(bounds[i + 1]),
    working: spans(clip(working, bounds[i], bounds[i + 1])),
    blocks: spans(clip(blocks, bounds[i], bounds[i + 1])),
    booked_minutes: Math.round(bookedMinutesOnLocalDay(counted, tz, bounds[i], bounds[i + 1])),
  }));

  return {
    owner: {
      email: owner.email,
      name: owner.name,
      time_zone: tz,
      max_daily_meeting_hours: owner.maxDailyMeetingHours,
      working_hours_configured: !!owner.workingHours,
    },
    week_start: monday.toString(),
    previous_week: monday.subtract({ days: 7 }).toString(),
    next_week: monday.add({ days: 7 }).toString(),
    this_week: mondayOf(today).toString(),
    next_meeting_week: jumped !== null,
    today: today.toString(),
    days,
    events,
  };
}
