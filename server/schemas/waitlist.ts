import { z } from 'zod';
import { Email, NullableTimestamp, Timestamp, UtcDateTime } from './common';

/** The waitlist (docs/api.md "Waitlist"). */

export const WaitlistJoinBody = z
  .strictObject({
    owner_email: Email.optional(),
    meeting_class: z.string().min(1).max(100).describe('Its priority orders the waitlist'),
    calendar_type: z.string().min(1).max(40).optional(),
    duration_minutes: z.int().min(5).max(480),
    window_start: UtcDateTime,
    window_end: UtcDateTime.describe('A single slot: window_start plus duration_minutes'),
    expires_at: UtcDateTime.optional().describe('Stop waiting then'),
  })
  .meta({ id: 'WaitlistJoin' });

export const WaitlistQuery = z.strictObject({
  status: z.enum(['waiting', 'offered', 'lapsed', 'cancelled']).optional().describe('Only entries stored with this status'),
});

export const WaitlistEntry = z
  .object({
    id: z.string(),
    status: z
      .enum(['waiting', 'offered', 'fulfilled', 'lapsed', 'cancelled', 'expired'])
      .describe('offered: hold_id is yours; fulfilled: confirmed; lapsed: the hold ended'),
    owner_email: z.string(),
    meeting_class: z.string(),
    calendar_type: z.string().nullable(),
    duration_minutes: z.int(),
    window_start: Timestamp,
    window_end: Timestamp,
    expires_at: NullableTimestamp,
    hold_id: z.string().nullable(),
    offered_at: NullableTimestamp,
    created_at: Timestamp,
  })
  .meta({ id: 'WaitlistEntry' });

export const WaitlistList = z.object({ data: z.array(WaitlistEntry) }).meta({ id: 'WaitlistList' });
