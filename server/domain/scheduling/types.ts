/**
 * Types of the pure scheduling core.
 *
 * Conventions used throughout `server/domain/scheduling`:
 * - Instants are epoch milliseconds (numbers). Intervals are half-open [start, end).
 * - "Local" always means the owner's wall clock in `OwnerRules.timeZone` (IANA).
 * - Nothing in this folder reads a clock, the environment, a database or the network:
 *   `now` is always passed in.
 */

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';

export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** "HH:MM" owner-local; `end` may be "24:00" (= next local midnight); start < end. */
export type LocalRange = { start: string; end: string };

export type HardBlock =
  /** Weekly local range. `end <= start` (e.g. 22:00-06:00) runs on into the next local day. */
  | { days: Weekday[]; start: string; end: string; label?: string }
  /**
   * RFC 5545 recurrence. `rrule` e.g. "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;COUNT=10" (an "RRULE:"
   * prefix is accepted); `dtstart` is owner-local "YYYY-MM-DDTHH:MM" (first occurrence).
   */
  | {
      rrule: string;
      dtstart: string;
      duration_minutes: number;
      label?: string;
      /** Computed when the rule is saved (withCountCheckpoint), never given by a client: see rrule.ts. */
      count_checkpoint?: { day: string; used: number };
    };

export type OwnerRules = {
  /** IANA time zone, e.g. "Europe/Berlin". */
  timeZone: string;
  /** null = not configured: no time-of-day/weekday restriction + warning WORKING_HOURS_NOT_CONFIGURED. */
  workingHours: Record<Weekday, LocalRange[]> | null;
  hardBlocks: HardBlock[];
  /** May be fractional (4.5 = 270 minutes). null = no limit. */
  maxDailyMeetingHours: number | null;
  /**
   * Meetings' buffers keep clear of provider-calendar busy time too (`external` claims).
   * Absent or false: buffers apply between the owner's own claims only (docs/arbitration.md "Buffers").
   */
  bufferExternalEvents?: boolean;
  /**
   * Local dates whose hours replace the weekly ones (docs/arbitration.md "Date overrides"):
   * other working hours, or a day off (empty list). Requires configured working hours.
   */
  dateOverrides?: DateOverride[];
  /** Inclusive local date ranges the owner is away (docs/arbitration.md "Out of office"): OUT_OF_OFFICE. */
  outOfOffice?: OutOfOffice[];
};

/** Away from `start` to `end`, both owner-local dates YYYY-MM-DD, inclusive. */
export type OutOfOffice = { start: string; end: string; note?: string };

/** One local date's working hours in place of its weekday's (empty: a day off). `date` is YYYY-MM-DD. */
export type DateOverride = { date: string; working_hours: LocalRange[] };

export type Interval = { start: number; end: number };

/** An active claim on the owner's time (confirmed booking or unexpired hold). */
export type Claim = {
  id: string;
  kind: 'hold' | 'booking';
  /** The claimed interval (for a window hold: its whole held window). */
  start: number;
  end: number;
  /** Minutes counted toward the daily limit (window hold: its duration_minutes; otherwise end-start). */
  countedMinutes: number;
  /** Meeting-class priority (higher wins). */
  priority: number;
  /** Computed by isSacred() by the caller before arbitration; always false for holds. */
  sacred: boolean;
  /** The meeting class's name, for the `conflicts[]` of a refusal (null or absent: none, e.g. imported busy time). */
  meetingClass?: string | null;
  /** Busy time of a provider calendar (or an event imported from one): a refusal names it `calendar_event`. */
  external?: boolean;
  /**
   * The time the claim keeps free before its start and after its end, in ms (its class's or
   * meeting type's buffers; docs/arbitration.md "Buffers"). Absent: none (provider busy time).
   */
  bufferBeforeMs?: number;
  bufferAfterMs?: number;
  /**
   * The hold several claim ranges belong to (an `all_free` window hold claims one range per free
   * stretch). Ranges of one group count their countedMinutes once per local day, are set aside
   * together (excludeClaimIds names the group) and give way together.
   */
  group?: string;
};

type PreemptPolicy = 'preempt_lower' | 'never';

/** The requester-side facts arbitration needs (shared by arbitrate and the slot search). */
export type RequestPolicy = {
  priority: number;
  /** Our class's (or the public meeting type's effective) policy. */
  preemptPolicy: PreemptPolicy;
  /** The agent has the `preempt` permission. */
  agentCanPreempt: boolean;
  /**
   * The time the requested meeting keeps free before its start and after its end, in ms (its
   * class's or public meeting type's buffers; docs/arbitration.md "Buffers"). Absent: none.
   */
  bufferBeforeMs?: number;
  bufferAfterMs?: number;
  /**
   * Not arbitrated: the minutes before its start at which an accepted booking's attendees are
   * reminded (its class's, or its public meeting type's; docs/reliability.md "Reminders"). Absent: none.
   */
  reminderOffsetsMinutes?: readonly number[];
};

export type ArbitrationRequest = RequestPolicy & { start: number; end: number };

export type ArbitrationContext = {
  now: number;
  rules: OwnerRules;
  /**
   * ALL active claims of the owner in a horizon around the request: at least
   * [request.start - 72h - 1 day, request.end + 72h + 1 day]. The arbiter picks the overlapping
   * and same-local-day ones itself.
   */
  claims: Claim[];
  /** Claims to ignore (e.g. the hold being confirmed). */
  excludeClaimIds?: string[];
};

export type RejectReason =
  | 'NO_CAPACITY'
  | 'WORKING_HOURS'
  | 'OFF_DAY'
  | 'OUT_OF_OFFICE'
  | 'SACRED_MEETING'
  | 'MAX_DAILY_HOURS'
  | 'PERMISSION_DENIED_PREEMPT';

export type AlternativeReasonCode =
  | 'capacity_conflict'
  | 'out_of_office'
  | 'working_hours'
  | 'off_day'
  | 'daily_hours_limit'
  | 'sacred_meeting'
  | 'permission_denied_preempt';

export type Alternative = { start: number; end: number; reason_code: AlternativeReasonCode };

/**
 * What a refused slot collided with (docs/arbitration.md "Conflicts"): never another agent's
 * private details (no ids, attendees, titles or agent names). Working hours, working days and the
 * daily limit are reasons, not conflicts.
 */
export type MeetingConflict =
  | { kind: 'booking'; meeting_class: string | null; priority: number | null; sacred: boolean }
  | { kind: 'hold' }
  | { kind: 'calendar_event'; sacred: true };

export type Conflict =
  | { kind: 'hard_block'; label: string | null }
  | MeetingConflict
  /**
   * A meeting the requested slot does not overlap but a buffer runs into (the request's own, or
   * the meeting's): `side` says where it lies, before the requested start or after its end.
   */
  | { kind: 'buffer'; side: 'before' | 'after'; meeting: MeetingConflict };

export const WARNING_WORKING_HOURS_NOT_CONFIGURED = 'WORKING_HOURS_NOT_CONFIGURED';

export type Decision =
  | { outcome: 'accept'; preempt: string[]; warnings: string[] }
  /** Maps to 422 PAST_TIME. */
  | { outcome: 'past_time' }
  | {
      outcome: 'reject' | 'counter_propose';
      reason: RejectReason | 'COUNTER_PROPOSED';
      failedReason: RejectReason;
      alternatives: Alternative[];
      /** Everything the requested slot overlaps: hard blocks and other claims. */
      conflicts: Conflict[];
      warnings: string[];
    };

export type NoSlotsReason = 'NO_FREE_SLOTS' | 'DAILY_HOURS_LIMIT' | 'OFF_DAY' | 'WORKING_HOURS' | 'HARD_BLOCK' | 'OUT_OF_OFFICE';

export type Slot = { start: number; end: number; preempts: boolean };
