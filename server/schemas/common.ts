import { z } from 'zod';
import { EARLIEST_INSTANT, LATEST_INSTANT, isSupportedInstant } from '@/server/domain/scheduling/limits';

/** Shared request/response building blocks (the same schemas validate and document). */
export const Email = z.email().max(254);
const DATE_TIME_ACCEPTED = `an RFC 3339 date-time with Z or a UTC offset (YYYY-MM-DDTHH:MM:SS, then Z or +HH:MM / -HH:MM), from ${EARLIEST_INSTANT} to ${LATEST_INSTANT}`;
/** The UTC spelling of an RFC 3339 date-time (the given precision kept; `Z` inputs unchanged). */
export function toUtcSpelling(s: string): string {
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
/** An owner-local twin of a UTC timestamp: RFC 3339 with the owner's offset then (docs/api.md "Time zones"). */
export const LocalDateTime = z
  .string()
  .meta({ id: 'LocalDateTime', description: "The same instant on the owner's wall clock, with the offset in force then, e.g. 2027-01-12T14:00:00+01:00" });
export const LocalFields = { start_local: LocalDateTime, end_local: LocalDateTime };
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
