import { z } from 'zod';
import { POOL_ASSIGNMENT_REASONS } from '@/db/schema';
import { Email, LocalFields, Timestamp, UtcDateTime, Warnings } from './common';

/** Pools (docs/groups.md, "Pools"): a named set of owners with weights, and scheduling through one. */

const PoolName = z.string().trim().min(1).max(100);
const PoolWeight = z.int().min(1).max(100);
const PoolMemberInput = z.strictObject({ owner_email: Email, weight: PoolWeight });
const Members = z
  .array(PoolMemberInput)
  .min(1)
  .max(50)
  .refine((ms) => new Set(ms.map((m) => m.owner_email.trim().toLowerCase())).size === ms.length, { message: 'each owner at most once' });

export const PoolCreateBody = z.strictObject({ name: PoolName, members: Members });
export const PoolPatchBody = z
  .strictObject({ name: PoolName.optional(), members: Members.optional().describe('Replaces every member and weight') })
  .refine((b) => b.name !== undefined || b.members !== undefined, { message: 'give name or members', path: ['name'] });

export const Pool = z
  .object({
    pool_id: z.string(),
    name: z.string(),
    members: z.array(z.object({ owner_email: z.string(), weight: z.int() })),
    created_at: Timestamp,
  })
  .meta({ id: 'Pool' });
export const PoolList = z.object({ pools: z.array(Pool) });

export const PoolAssignmentsQuery = z.strictObject({
  from: UtcDateTime.optional(),
  to: UtcDateTime.optional(),
});
export const PoolAssignments = z.object({
  from: Timestamp,
  to: Timestamp,
  members: z.array(
    z.object({
      owner_email: z.string(),
      weight: z.int(),
      booked_minutes: z.int(),
      share: z.number(),
      target_share: z.number(),
    }),
  ),
});

/** Who a pool claim went to and why (holds and bookings made with `pool`). */
export const PoolAssignment = z
  .object({
    pool_id: z.string(),
    reason: z.enum(POOL_ASSIGNMENT_REASONS),
    load_minutes: z.int(),
    weight: z.int(),
  })
  .meta({ id: 'PoolAssignment', description: 'Made with pool: the member chosen (owner_email), why, and the load (minutes booked through the pool in the trailing 7 days) and weight it had' });

/**
 * A pool reference in a scheduling call, instead of owner_email: the pool's id or its name
 * (undescribed: the MCP tools/list stays under its cap; list_pools and docs/api.md say it).
 */
export const PoolRef = z.string().min(1).max(100);

export const PoolAvailabilityResult = z
  .object({
    pool_id: z.string(),
    owners: z.array(z.object({ owner_email: z.string(), time_zone: z.string() })),
    slots: z.array(
      z.object({
        start: Timestamp,
        end: Timestamp,
        ...LocalFields,
        local: z.record(z.string(), z.object(LocalFields)),
        candidates: z.array(z.string()).describe('Members free for the slot, in the order the pool picks'),
      }),
    ),
    warnings: Warnings,
  })
  .meta({ id: 'PoolAvailability' });
