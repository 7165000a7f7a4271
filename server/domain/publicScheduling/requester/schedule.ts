import type { Executor } from '@/db/client';
import { findMeetingType, listMeetingTypes, effectivePreemptPolicy, type LinkRecord, type MeetingTypeRecord } from '../admin';
import { DomainError, isDomainError, invalidField } from '../../errors';
import { loadClaims, ownerRules, resolveCalendar } from '../../claims';
import { bufferMs, localSpan, searchSlots, type LocalSpan, type RequestPolicy } from '../../scheduling';
import { loadPublicLink, publicNotFound, resolveRequester, typeListed, typeReachable, type Requester } from './access';
import { hostSlots, loadHosts, type HostSet } from './hosts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Claims loaded either side of a window, for daily limits (a local day can span 26 h). */
const DAY_MARGIN = 26 * HOUR;
export const MAX_SUGGESTED_TIMES = 50;
export const DEFAULT_SUGGESTION_DAYS = 14;
export const MAX_SUGGESTION_DAYS = 31;

export type PublicScheduleView = { title: string | null; owner_name: string | null; meeting_types: { slug: string; title: string; duration_minutes: number[] }[] };
export type Interval = { start: Date; end: Date };

/** GET /public/schedules/{id}: the link and the types this requester may see. */
export async function publicSchedule(db: Executor, idOrAlias: string, bearer: string | null): Promise<PublicScheduleView> {
  const rec = await loadPublicLink(db, idOrAlias);
  const requester = await resolveRequester(db, bearer, rec.link.customerId);
  const meeting_types: PublicScheduleView['meeting_types'] = [];
  for (const t of await listMeetingTypes(db, rec.link.id)) {
    if (await typeListed(db, t, requester)) meeting_types.push({ slug: t.type.slug, title: t.type.title, duration_minutes: t.type.durationMinutes });
  }
  return { title: rec.link.title, owner_name: rec.owner.name, meeting_types };
}

export type PublicTypeContext = { link: LinkRecord; type: MeetingTypeRecord; requester: Requester | null };

/** Link, credential and a type this requester may reach by slug; anything else is the same not_found. */
export async function loadPublicType(db: Executor, idOrAlias: string, slug: string, bearer: string | null): Promise<PublicTypeContext> {
  const link = await loadPublicLink(db, idOrAlias);
  const requester = await resolveRequester(db, bearer, link.link.customerId);
  const type = await findMeetingType(db, link.link.id, slug);
  if (!type || !(await typeReachable(db, type, requester))) throw publicNotFound('Public meeting type not found');
  return { link, type, requester };
}

/** Suggestions sit on a grid of owner-local multiples of this step after midnight. */
function publicStepMinutes(durationMinutes: number): number {
  return durationMinutes <= 15 ? 15 : 30;
}

/**
 * The request a public requester makes: the type's class priority and its
 * effective preempt policy, but never permission to preempt. Suggestions are
 * therefore only times that are genuinely free (nothing would give way), so a
 * list never reveals what is booked at lower priority. Preemption, where the
 * type's policy allows it, happens only when the owner approves.
 */
function publicRequestPolicy(type: MeetingTypeRecord): RequestPolicy {
  return {
    priority: type.meetingClass.priority,
    preemptPolicy: effectivePreemptPolicy(type.type, type.meetingClass),
    agentCanPreempt: false,
    // The type's buffers (docs/arbitration.md "Buffers"), as its approval books with (approvalPolicy).
    ...bufferMs(type.type.bufferBeforeMinutes, type.type.bufferAfterMinutes),
  };
}

function badQuery(field: string, message: string): DomainError {
  return invalidField(field, message);
}

/** A suggestable time; for a type with several hosts, the owner ids that can take it (docs/public-scheduling.md "Several hosts"). */
export type AcceptableSlot = Interval & { accepting?: string[] };

/**
 * Acceptable start times of `durationMinutes` inside `window`, at most `max`, for a public type.
 * `hosts`: a type's several hosts when already loaded (else loaded here). `moving`: the booking a
 * request to move would move, set aside as a reschedule sets it aside (its own time never blocks
 * its new time; docs/public-scheduling.md "Asking to move").
 */
export async function acceptableSlots(
  db: Executor,
  ctx: PublicTypeContext,
  durationMinutes: number,
  window: Interval,
  now: Date,
  max: number,
  opts: { hosts?: HostSet | null; moving?: string } = {},
): Promise<AcceptableSlot[]> {
  const { hosts, moving } = opts;
  if (ctx.type.type.hostMode !== 'single') {
    // Several hosts: one set of times, from the collective (or pool) search over all of them.
    const set = hosts === undefined ? await loadHosts(db, ctx.type, now) : hosts;
    if (!set) return [];
    const earliest = now.getTime() + ctx.type.type.minNoticeHours * 3_600_000;
    if (window.start.getTime() < earliest) window = { start: new Date(earliest), end: window.end };
    if (window.end.getTime() <= window.start.getTime()) return [];
    return hostSlots(db, set, publicRequestPolicy(ctx.type), durationMinutes, publicStepMinutes(durationMinutes), window, now, max);
  }
  const owner = ctx.link.owner;
  try {
    await resolveCalendar(db, owner, undefined);
  } catch (err) {
    // No usable calendar: nothing to offer (the reason is the owner's business, not the requester's).
    if (isDomainError(err) && (err.code === 'CALENDAR_NOT_FOUND' || err.code === 'CALENDAR_REAUTH_REQUIRED')) return [];
    throw err;
  }
  // The type's minimum notice: nothing starts sooner than that many hours from now (docs/public-scheduling.md "Suggested times").
  const earliest = now.getTime() + ctx.type.type.minNoticeHours * 3_600_000;
  if (window.start.getTime() < earliest) window = { start: new Date(earliest), end: window.end };
  if (window.end.getTime() <= window.start.getTime()) return [];
  const loaded = await loadClaims(db, owner.id, new Date(window.start.getTime() - DAY_MARGIN), new Date(window.end.getTime() + DAY_MARGIN), now);
  const claims = moving ? loaded.filter((c) => c.id !== moving) : loaded;
  const result = searchSlots({
    rules: ownerRules(owner),
    claims,
    now: now.getTime(),
    durationMinutes,
    request: publicRequestPolicy(ctx.type),
    window: { start: window.start.getTime(), end: window.end.getTime() },
    stepMinutes: publicStepMinutes(durationMinutes),
    maxResults: max,
  });
  return result.slots.filter((s) => !s.preempts).map((s) => ({ start: new Date(s.start), end: new Date(s.end) }));
}

/** GET .../meeting-types/{slug}/suggested-times: at most 50 free start times. */
export async function suggestedTimes(
  db: Executor,
  ctx: PublicTypeContext,
  q: { durationMinutes?: number; from?: Date; to?: Date },
  now: Date,
): Promise<{ suggested_times: LocalSpan[] }> {
  const durations = ctx.type.type.durationMinutes;
  const duration = q.durationMinutes ?? Math.min(...durations);
  if (!durations.includes(duration)) throw badQuery('duration_minutes', `must be one of ${durations.join(', ')}`);
  const from = q.from ?? now;
  const to = q.to ?? new Date(Math.max(from.getTime(), now.getTime()) + DEFAULT_SUGGESTION_DAYS * DAY);
  if (!(to > from)) throw badQuery('to', 'must be after from');
  if (to.getTime() - from.getTime() > MAX_SUGGESTION_DAYS * DAY) throw badQuery('to', `at most ${MAX_SUGGESTION_DAYS} days after from`);
  const hosts = ctx.type.type.hostMode === 'single' ? null : await loadHosts(db, ctx.type, now);
  const slots = await acceptableSlots(db, ctx, duration, { start: from, end: to }, now, MAX_SUGGESTED_TIMES, { hosts });
  // start_local/end_local: the host's wall clock with its offset, as every booking page shows it
  // (docs/public-scheduling.md "Times"); the offset is neither an owner rule nor free/busy.
  // Several hosts: the first host's (whose local midnight lays the grid).
  const zone = hosts?.hosts[0]?.target.owner.timeZone ?? ctx.link.owner.timeZone;
  return { suggested_times: slots.map((s) => localSpan(s.start, s.end, zone)) };
}

/**
 * Is `window` a time the suggestions would offer right now (on the grid, of
 * one of the type's durations, in the future, free)? Else 409 time_unavailable.
 */
export async function assertSuggestable(db: Executor, ctx: PublicTypeContext, durationMinutes: number, window: Interval, now: Date, hosts?: HostSet | null): Promise<AcceptableSlot> {
  const unavailable = new DomainError('time_unavailable', 'The requested time is not one of the currently suggested times; fetch suggested-times again');
  if (window.end.getTime() - window.start.getTime() !== durationMinutes * MINUTE) throw unavailable;
  const [slot] = await acceptableSlots(db, ctx, durationMinutes, window, now, 1, { hosts });
  if (!slot || slot.start.getTime() !== window.start.getTime()) throw unavailable;
  return slot;
}
