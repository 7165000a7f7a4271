import { z } from 'zod';
import { MAX_REMINDER_OFFSET_MINUTES, MAX_REMINDERS, MIN_REMINDER_OFFSET_MINUTES } from '@/db/schema/reminders';
import { EARLIEST_INSTANT, LATEST_INSTANT, MAX_BUFFER_MINUTES, isSupportedInstant } from '@/server/domain/scheduling/limits';

/** Shared request/response building blocks (the same schemas validate and document). */
export const Email = z.email().max(254);
const DATE_TIME_ACCEPTED = `an RFC 3339 date-time with Z or a UTC offset (YYYY-MM-DDTHH:MM:SS, then Z or +HH:MM / -HH:MM), from ${EARLIEST_INSTANT} to ${LATEST_INSTANT}`;
/** The UTC spelling of an RFC 3339 date-time (the given precision kept; `Z` inputs unchanged). */
function toUtcSpelling(s: string): string {
  if (s.endsWith('Z')) return s;
  const iso = new Date(Date.parse(s)).toISOString();
  return s.includes('.') ? iso : iso.replace('.000Z', 'Z');
}
/**
 * Every instant a request gives: an RFC 3339 date-time with any offset, normalised to UTC (`Z`),
 * and within the supported range (docs/api.md "Limits"), so margins and lookaheads computed from it
 * stay timestamps the database stores.
 */
export const UtcDateTime = z.iso
  .datetime({ offset: true, precision: undefined, error: `must be ${DATE_TIME_ACCEPTED}` })
  .refine((s) => isSupportedInstant(Date.parse(s)), `must be ${DATE_TIME_ACCEPTED}`)
  .transform(toUtcSpelling)
  .meta({ id: 'DateTimeInput', description: 'RFC 3339 date-time with Z or an offset, e.g. 2027-01-12T14:00:00+01:00 (normalised to UTC; docs/api.md "Limits" gives the range)' });
/** A response timestamp (documented as `format: date-time`; the server always writes UTC with milliseconds). */
export const Timestamp = z.iso.datetime().meta({ id: 'Timestamp', description: 'UTC ISO 8601 date-time' });
/**
 * A response timestamp that may be absent (null). Not `Timestamp.nullable()`: the generator writes a
 * nullable registered schema as `allOf: [Timestamp, {type: [string, null]}]`, which null never
 * satisfies (docs/architecture.md "Response shapes and the OpenAPI document").
 */
export const NullableTimestamp = z.iso.datetime().nullable().meta({ id: 'NullableTimestamp', description: 'UTC ISO 8601 date-time, or null' });
/** An owner-local twin of a UTC timestamp: RFC 3339 with the owner's offset then (docs/api.md "Time zones"). */
export const LocalDateTime = z
  .string()
  .meta({ id: 'LocalDateTime', description: "The same instant on the owner's wall clock, with the offset in force then, e.g. 2027-01-12T14:00:00+01:00" });
/**
 * The caller's twins (docs/api.md "The caller's time zone"), beside the owner's wherever the call
 * named a zone (time_zone, or the key's or agent's display_time_zone): server/domain/callerZone.ts adds them.
 */
const CallerDateTime = z
  .string()
  .meta({ id: 'CallerDateTime', description: "The same instant on the caller's wall clock (time_zone, else display_time_zone), with its offset then" });
export const CallerFields = { start_caller: CallerDateTime.optional(), end_caller: CallerDateTime.optional() };
/** The owner's twins, and beside them the caller's when the call named a zone. */
export const LocalFields = { start_local: LocalDateTime, ...CallerFields, end_local: LocalDateTime };
/** The query parameter of every call whose answer carries start_local/end_local (checked by the domain: INVALID_TIME_ZONE). */
export const CallerZoneQuery = {
  time_zone: z
    .string()
    .max(256)
    .optional()
    .describe("IANA zone for start_caller/end_caller beside the owner's start_local/end_local; default: the key's or agent's display_time_zone"),
};
export const Weekday = z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
/** A wall-clock time HH:MM (24:00 allowed as an end); the dashboard's error map words its refusal for the browser's clock. */
export const LOCAL_TIME_PATTERN = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
export const LocalTime = z.string().regex(LOCAL_TIME_PATTERN, 'must be HH:MM (00:00 to 24:00)');
export const Id = z.string().min(1).max(64);
export const IdParams = z.strictObject({ id: Id });

export const Pagination = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
};

export const Warnings = z.array(z.string()).optional().describe('e.g. WORKING_HOURS_NOT_CONFIGURED');
/** When a meeting's attendees are reminded (docs/reliability.md "Reminders"): minutes before its start. */
export const ReminderOffsets = z
  .array(z.int().min(MIN_REMINDER_OFFSET_MINUTES).max(MAX_REMINDER_OFFSET_MINUTES))
  .max(MAX_REMINDERS)
  .refine((list) => new Set(list).size === list.length, 'each offset at most once')
  .describe('Minutes before each meeting at which its attendees are reminded by mail and its agent by a booking.reminder notification and webhook: at most 5 distinct offsets, each 5 to 10080 (7 days), e.g. [1440, 60]');
/** Minutes a meeting keeps free before or after itself (docs/arbitration.md "Buffers"); default 0. */
export const BufferMinutes = z
  .int()
  .min(0)
  .max(MAX_BUFFER_MINUTES)
  .describe('Minutes kept free next to each meeting (0-240, default 0): no other meeting may start or end in them; buffers may overlap each other')
  .meta({ id: 'BufferMinutes' }); // one component: every class and meeting type body names it

const VIDEO_PROVIDERS = ['google_meet', 'microsoft_teams', 'link'] as const;
/** docs/calendars.md "Video links": made through the owner's connected Google or Microsoft calendar when booked, or a fixed link. */
/** A video meeting: google_meet or microsoft_teams made by the owner's calendar, or a fixed link (docs/calendars.md "Video links"). */
export const VideoSettingBody = z
  .strictObject({
    provider: z.enum(VIDEO_PROVIDERS),
    url: z.string().trim().max(500).refine((v) => /^https:\/\/\S+$/i.test(v), 'A video link must start with https://').optional().describe('provider link only'),
  })
  .refine((v) => (v.provider === 'link') === (v.url !== undefined), { message: 'url is required with provider link and refused with google_meet and microsoft_teams', path: ['url'] });

/** A video setting as answers show it: a meeting type's, or the one an agent's held booking asked for. */
export const VideoSetting = z.object({ provider: z.enum(VIDEO_PROVIDERS), url: z.string().nullable() }).meta({ id: 'VideoSetting' });

/** A booking's video link (docs/calendars.md "Video links"). */
export const VideoLink = z
  .object({
    provider: z.enum(['google_meet', 'microsoft_teams', 'link']),
    status: z.enum(['pending', 'ready', 'failed', 'removed']).describe('pending: the owner\'s calendar makes it at its next sync; ready: join_url; failed: error; removed: the booking is off'),
    join_url: z.string().nullable(),
    error: z.string().nullable(),
  })
  .meta({ id: 'VideoLink', description: 'A booking\'s video link, present when it has one (docs/calendars.md "Video links")' });
