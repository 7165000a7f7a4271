import { z } from 'zod';
import { EARLIEST_INSTANT, LATEST_INSTANT, isSupportedInstant } from '@/server/domain/scheduling/limits';

/** Shared request/response building blocks (the same schemas validate and document). */
export const Email = z.email().max(254);
/**
 * Every instant a request gives: UTC, and within the supported range (docs/api.md "Limits"), so
 * margins and lookaheads computed from it stay timestamps the database stores.
 */
export const UtcDateTime = z.iso
  .datetime({ offset: false, precision: undefined })
  .refine((s) => isSupportedInstant(Date.parse(s)), `must be between ${EARLIEST_INSTANT} and ${LATEST_INSTANT}`)
  .describe(`UTC ISO 8601 date-time ending in Z, from ${EARLIEST_INSTANT} to ${LATEST_INSTANT}`);
/** A response timestamp (documented as `format: date-time`; the server always writes UTC with milliseconds). */
export const Timestamp = z.iso.datetime().describe('UTC ISO 8601 date-time');
export const Weekday = z.enum(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']);
export const LocalTime = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'must be HH:MM (00:00 to 24:00)');
export const Id = z.string().min(1).max(64);
export const IdParams = z.strictObject({ id: Id });

export const Pagination = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional(),
};

export const Warnings = z.array(z.string()).optional().describe('e.g. WORKING_HOURS_NOT_CONFIGURED');
