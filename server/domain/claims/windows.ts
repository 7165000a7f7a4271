import { DomainError, invalidField } from '../errors';
import { localSpan, nextAvailable, windowTooNarrow, type Claim, type NoSlotsReason, type OwnerRules, type RequestPolicy } from '../scheduling';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** Longest window a search or window hold may span. */
const MAX_WINDOW_DAYS = 31;
/** A window starting this little in the past is clipped to now rather than refused (clock skew, latency). */
const PAST_TOLERANCE_MS = 5 * MINUTE;
export const DEFAULT_LOOKAHEAD_HOURS = 72;
export const MAX_LOOKAHEAD_HOURS = 72;
/** How far past the lookahead we look to say next_available_exceeds_lookahead. */
export const BEYOND_LOOKAHEAD_MS = 14 * 24 * HOUR;

/** A booking (and a candidate hold, and the evaluation of a booking) spans 5 to 480 minutes. */
const MIN_BOOKING_MINUTES = 5;
const MAX_BOOKING_MINUTES = 480;

/**
 * The span check of POST /v1/bookings, run before anything is loaded. Evaluate and candidate holds
 * run this same check, so a span one refuses the others refuse with the same code and field.
 */
export function assertBookingSpan(start: Date, end: Date, field: 'end' | 'candidate' = 'end', subject = 'A booking'): void {
  const minutes = (end.getTime() - start.getTime()) / MINUTE;
  if (!(minutes >= MIN_BOOKING_MINUTES && minutes <= MAX_BOOKING_MINUTES)) {
    const span = `${MIN_BOOKING_MINUTES} to ${MAX_BOOKING_MINUTES} minutes`;
    throw invalidField(field, `span must be ${span}`, `${subject} must span ${span} (end after start)`);
  }
}

/** WINDOW_TOO_NARROW, PAST_TIME and the window-size cap, in that order. */
export function validateWindow(window: { start: Date; end: Date }, durationMinutes: number, now: Date): void {
  const start = window.start.getTime();
  const end = window.end.getTime();
  if (!(end > start)) {
    throw invalidField('window', 'end must be after start', 'window.end must be after window.start');
  }
  if (windowTooNarrow({ start, end }, durationMinutes)) {
    throw new DomainError('WINDOW_TOO_NARROW', 'The window is shorter than the requested duration', {
      extra: { window_duration_minutes: Math.floor((end - start) / MINUTE), required_duration_minutes: durationMinutes },
    });
  }
  if (start < now.getTime() - PAST_TOLERANCE_MS) throw new DomainError('PAST_TIME', 'The window starts in the past');
  if (end - start > MAX_WINDOW_DAYS * 24 * HOUR) {
    throw invalidField('window', `at most ${MAX_WINDOW_DAYS} days`, `A window may span at most ${MAX_WINDOW_DAYS} days`);
  }
}

export type NoSlotsContext = {
  rules: OwnerRules;
  claims: readonly Claim[];
  now: number;
  durationMinutes: number;
  request: RequestPolicy;
  window: { start: Date; end: Date };
  lookaheadHours: number;
  stepMinutes?: number;
  /** Loads the claims of [from, to) when the search must look past what `claims` covers. */
  loadClaims(from: Date, to: Date): Promise<readonly Claim[]>;
};

/**
 * NO_SLOTS_AVAILABLE with `reason_code` and `next_available` (the earliest
 * acceptable slot starting at or after the window's start and no later than
 * window end + lookahead, docs/api.md "Search"), or
 * `next_available_exceeds_lookahead: true` when the first one starts after that.
 */
export async function noSlotsError(reason: NoSlotsReason, ctx: NoSlotsContext, warnings: string[] = []): Promise<DomainError> {
  const from = ctx.window.start.getTime();
  const lookaheadEnd = ctx.window.end.getTime() + ctx.lookaheadHours * HOUR;
  const margin = 26 * HOUR;
  const claims = await ctx.loadClaims(new Date(from - margin), new Date(lookaheadEnd + BEYOND_LOOKAHEAD_MS + margin));
  const next = nextAvailable({ ...ctx, claims, from, latestStart: lookaheadEnd });
  const extra: Record<string, unknown> = { reason_code: reason };
  if (next) {
    extra.next_available = localSpan(next.start, next.end, ctx.rules.timeZone);
  } else {
    const later = nextAvailable({ ...ctx, claims, from: lookaheadEnd + 1, latestStart: lookaheadEnd + BEYOND_LOOKAHEAD_MS });
    if (later) extra.next_available_exceeds_lookahead = true;
    else extra.next_available = null;
  }
  if (warnings.length) extra.warnings = warnings;
  return new DomainError('NO_SLOTS_AVAILABLE', `No free slots in the window (${reason})`, { extra });
}
