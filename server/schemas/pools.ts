import { z } from 'zod';
import { POOL_ASSIGNMENT_REASONS } from '@/db/schema';
import { Email, LocalFields, Timestamp, UtcDateTime, Warnings } from './common';

/** Pools (docs/groups.md, "Pools"): a named set of owners with weights, and scheduling through one. */

export const PoolName = z.string().trim().min(1).max(100);
export const PoolWeight = z.int().min(1).max(100);
export const PoolMemberInput = z.strictObject({ owner_email: Email, weight: PoolWeight.describe('1 to 100: the member\'s target share is weight / the total') });
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
  from: UtcDateTime.optional().describe('Bookings made from this instant (default: 30 days before to)'),
  to: UtcDateTime.optional().describe('Bookings made before this instant (default: now)'),
});
export const PoolAssignments = z.object({
  from: Timestamp,
  to: Timestamp,
  members: z.array(
    z.object({
      owner_email: z.string(),
      weight: z.int(),
      booked_minutes: z.int().describe('Minutes of confirmed bookings made through the pool in the period'),
      share: z.number().describe('booked_minutes / the pool\'s total (0 when nothing was booked)'),
      target_share: z.number().describe('weight / the total weight'),
    }),
  ),
});

/** Who a pool claim went to and why (holds and bookings made with `pool`). */
export const PoolAssignment = z
  .object({
    pool_id: z.string(),
    reason: z.enum(POOL_ASSIGNMENT_REASONS).describe('lowest_weighted_load, least_recently_booked, owner_order (ties), only_candidate, or requested (owner_email named the member)'),
    load_minutes: z.int().describe('Minutes booked through the pool in the trailing 7 days when chosen'),
    weight: z.int(),
  })
  .meta({ id: 'PoolAssignment' });

/** A pool reference in a scheduling call: the pool's id or its name. */
export const PoolRef = z.string().min(1).max(100).describe('A pool id or name, instead of owner_email: the pool picks a free member (docs/groups.md, "Pools")');

export const PoolAvailabilityResult = z
  .object({
    pool_id: z.string(),
    owners: z.array(z.object({ owner_email: z.string(), time_zone: z.string() })).describe('The members that had slots'),
    slots: z.array(
      z.object({
        start: Timestamp,
        end: Timestamp,
        ...LocalFields,
        local: z.record(z.string(), z.object(LocalFields)).describe('Each candidate\'s local times'),
        candidates: z.array(z.string()).describe('Members who could take the slot, in the order the pool would pick them'),
      }),
    ),
    warnings: Warnings,
  })
  .meta({ id: 'PoolAvailability' });
