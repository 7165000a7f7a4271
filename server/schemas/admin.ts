import { z } from 'zod';
import { ON_PREEMPTED, PERMISSIONS } from '@/db/schema';
import { MAX_DATE_OVERRIDES, MAX_HARD_BLOCKS, MAX_OUT_OF_OFFICE } from '@/server/domain/scheduling/limits';
import { BufferMinutes, Email, ReminderOffsets, LocalTime, Timestamp, Warnings, Weekday } from './common';

const LocalRange = z.strictObject({ start: LocalTime, end: LocalTime });
const DayRanges = z.array(LocalRange).max(12);

const WorkingHours = z.strictObject({
  mon: DayRanges.optional(),
  tue: DayRanges.optional(),
  wed: DayRanges.optional(),
  thu: DayRanges.optional(),
  fri: DayRanges.optional(),
  sat: DayRanges.optional(),
  sun: DayRanges.optional(),
});

const HardBlock = z.union([
  z.strictObject({ days: z.array(Weekday).min(1).max(7), start: LocalTime, end: LocalTime, label: z.string().max(200).optional() }),
  z.strictObject({
    rrule: z.string().min(1).max(500).describe('RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=MO,WE'),
    dtstart: z.string().max(32).describe('Owner-local start YYYY-MM-DDTHH:MM'),
    duration_minutes: z.int().min(1).max(1440),
    label: z.string().max(200).optional(),
  }),
]);

const DateOverride = z.strictObject({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).describe('Local YYYY-MM-DD'),
  working_hours: DayRanges.describe('[] = a day off'),
}).meta({ id: 'DateOverride' });
const DateOverrides = z
  .array(DateOverride)
  .max(MAX_DATE_OVERRIDES)
  .meta({ id: 'DateOverrides', description: 'Local dates whose hours replace the weekly ones; each date once; needs working_hours' });

const LocalDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const OutOfOffice = z
  .array(z.strictObject({ start: LocalDate.describe('First local day away'), end: LocalDate.describe('Last local day away (inclusive)'), note: z.string().max(200).optional() }))
  .max(MAX_OUT_OF_OFFICE)
  .meta({ id: 'OutOfOffice', description: 'Inclusive local date ranges the owner is away: claims there answer 409 OUT_OF_OFFICE, searches offer nothing' });

export const OwnerCreateBody = z.strictObject({
  email: Email,
  name: z.string().min(1).max(200).optional(),
  time_zone: z.string().min(1).max(64).describe('IANA time zone, e.g. Europe/Berlin'),
  working_hours: WorkingHours.nullable()
    .optional()
    .describe('The schedule rules in the same call (as PUT /v1/schedule-rules); absent or null: not configured (no restriction)'),
  hard_blocks: z.array(HardBlock).max(MAX_HARD_BLOCKS).optional(),
  max_daily_meeting_hours: z.number().positive().max(24).nullable().optional(),
});
export const Owner = z.object({ owner_email: z.string(), name: z.string().nullable(), time_zone: z.string() }).meta({ id: 'Owner' });

export const RulesQuery = z.strictObject({ owner_email: Email.optional() });
export const RulesPutBody = z.strictObject({
  owner_email: Email.optional(),
  time_zone: z.string().min(1).max(64).optional(),
  working_hours: WorkingHours.nullable().describe('null: not configured (no restriction); a weekday absent or empty is not a working day'),
  hard_blocks: z.array(HardBlock).max(MAX_HARD_BLOCKS).optional(),
  max_daily_meeting_hours: z.number().positive().max(24).nullable().optional(),
  buffer_external_events: z
    .boolean()
    .optional()
    .describe("true: meetings' buffers keep clear of provider-calendar busy time too; absent or false: buffers apply between the owner's claims only (docs/arbitration.md \"Buffers\")"),
  date_overrides: DateOverrides.optional(),
  out_of_office: OutOfOffice.optional(),
});
export const Rules = z.object({
  owner_email: z.string(),
  time_zone: z.string(),
  working_hours: z.record(z.string(), z.array(LocalRange)).nullable(),
  working_days: z.array(Weekday),
  hard_blocks: z.array(HardBlock),
  max_daily_meeting_hours: z.number().nullable(),
  buffer_external_events: z.boolean().describe("Meetings' buffers keep clear of provider-calendar busy time too"),
  date_overrides: DateOverrides,
  out_of_office: OutOfOffice,
  warnings: Warnings,
}).meta({ id: 'Rules' });

/** docs/arbitration.md "Bumped meetings rebooked": what a booking of the class gets when it is preempted. */
const OnPreempted = z
  .enum(ON_PREEMPTED)
  .nullable()
  .describe('hold_nearest: a preempted booking gets a hold on the nearest acceptable slot; null: none')
  .meta({ id: 'OnPreempted' });
const MeetingClassSettings = {
  priority: z.int().min(-1000).max(1000),
  preempt_policy: z.enum(['preempt_lower', 'never']).optional(),
  sacred_meeting_age_hours: z.int().min(0).max(24 * 365).optional(),
  buffer_before_minutes: BufferMinutes.optional(),
  buffer_after_minutes: BufferMinutes.optional(),
  reminder_offsets_minutes: ReminderOffsets.optional(),
  on_preempted: OnPreempted.optional(),
};
export const MeetingClassCreateBody = z.strictObject({ name: z.string().min(1).max(100), ...MeetingClassSettings });
/** Any setting but the name; what is left out stays. */
export const MeetingClassPatchBody = z.strictObject({ ...MeetingClassSettings, priority: MeetingClassSettings.priority.optional() });
export const MeetingClassParams = z.strictObject({ name: z.string().min(1).max(100) });
export const MeetingClass = z.object({
  name: z.string(),
  priority: z.int(),
  preempt_policy: z.enum(['preempt_lower', 'never']),
  sacred_meeting_age_hours: z.int(),
  buffer_before_minutes: z.int().describe('Minutes kept free before each meeting of the class'),
  buffer_after_minutes: z.int().describe('Minutes kept free after each meeting of the class'),
  reminder_offsets_minutes: z.array(z.int()).describe('Minutes before each meeting of the class at which it is reminded, largest first; [] none (docs/reliability.md "Reminders")'),
  on_preempted: OnPreempted,
}).meta({ id: 'MeetingClass' });

export const MeetingClassList = z.object({
  meeting_classes: z.array(MeetingClass),
  owners: z.array(Owner).describe("The calendar owners the caller's owner_scope covers (by email; at most 200): the owner_email values it may use"),
  owners_truncated: z.boolean().describe('true when the scope covers more owners than listed'),
});

const Permission = z.enum(PERMISSIONS);
/** An agent's or key's default caller zone (docs/api.md "The caller's time zone"); checked by the domain (INVALID_TIME_ZONE). */
const DisplayTimeZone = z.string().max(256).describe('IANA zone whose start_caller/end_caller answers add when a call names no time_zone');
const OwnerScope = z.string().min(1).max(260).describe('"org:*" or "user:<email>"');
export const AgentCreateBody = z.strictObject({
  name: z.string().min(1).max(200),
  owner_scope: OwnerScope,
  permissions: z.array(Permission).max(PERMISSIONS.length),
  display_time_zone: DisplayTimeZone.optional(),
});
export const AgentPatchBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  owner_scope: OwnerScope.optional(),
  permissions: z.array(Permission).max(PERMISSIONS.length).optional(),
  disabled: z.boolean().optional(),
  display_time_zone: DisplayTimeZone.nullable().optional(),
});
export const Agent = z.object({
  agent_id: z.string(),
  name: z.string(),
  owner_scope: z.string(),
  permissions: z.array(Permission),
  disabled: z.boolean(),
  display_time_zone: z.string().nullable().describe('Default caller zone of its keys (null: none)'),
  created_at: Timestamp,
}).meta({ id: 'Agent' });
export const KeyCreateBody = z.strictObject({ name: z.string().min(1).max(200).optional(), display_time_zone: DisplayTimeZone.optional().describe("Overrides the agent's display_time_zone for this key") });
export const MintedKey = z.object({
  key_id: z.string(),
  api_key: z.string().nullable().describe('Shown once; null on an idempotent replay'),
  prefix: z.string(),
  display_time_zone: z.string().nullable(),
  created_at: Timestamp,
});
export const AgentKeyParams = z.strictObject({ id: z.string().min(1).max(64), key_id: z.string().min(1).max(64) });
export const RevokedKey = z.object({ key_id: z.string(), revoked_at: Timestamp });

const Budget = z.object({ limit: z.int().describe('Requests per window'), window_seconds: z.int() });
export const AgentSelf = Agent.extend({
  key_id: z.string().describe('The key this request was made with'),
  key_prefix: z.string().nullable().describe("That key's display prefix"),
  key_display_time_zone: z.string().nullable().describe("That key's display_time_zone (overrides the agent's; null: the agent's applies)"),
  rate_limits: z
    .object({ availability_search: Budget, holds: Budget, bookings: Budget, confirm: Budget, global: Budget.describe('Per client IP, every request no per-key policy covers') })
    .describe('The budgets that apply to this key (docs/api.md "Rate limits")'),
});
export const AgentList = z.object({ agents: z.array(Agent) });

export const TimeZoneList = z
  .object({ time_zones: z.array(z.string()).describe('IANA names, sorted; each accepted as time_zone (links such as Asia/Calcutta are accepted too, unlisted)') })
  .meta({ id: 'TimeZoneList' });
