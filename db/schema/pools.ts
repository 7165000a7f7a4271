import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, primaryKey, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { customers } from './customers';
import { owners } from './owners';

/**
 * A pool: a named, customer-scoped set of owners with integer weights (docs/groups.md,
 * "Pools"). Booking through a pool picks one member free at the slot by weighted load.
 */
export const pools = pgTable(
  'pools',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('pools_customer_name_key').on(t.customerId, t.name)],
);

/** A member of a pool and its weight (1 to 100): its target share is weight / the pool's total weight. */
export const poolMembers = pgTable(
  'pool_members',
  {
    poolId: uuid('pool_id').notNull().references(() => pools.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull().references(() => owners.id, { onDelete: 'cascade' }),
    weight: integer('weight').notNull(),
  },
  (t) => [
    primaryKey({ name: 'pool_members_pkey', columns: [t.poolId, t.ownerId] }),
    index('pool_members_owner_idx').on(t.ownerId),
    check('pool_members_weight_check', sql`${t.weight} between 1 and 100`),
  ],
);

/** Why a pool picked its member: the load rule decided, or the agent named the member. */
export const POOL_ASSIGNMENT_REASONS = ['lowest_weighted_load', 'least_recently_booked', 'owner_order', 'only_candidate', 'requested'] as const;
export type PoolAssignmentReason = (typeof POOL_ASSIGNMENT_REASONS)[number];

/**
 * One row per claim (hold or booking) made through a pool: who was chosen and why, with
 * the load and weight the choice saw. A booking confirmed from a pool hold counts through
 * its hold_id. The claim_id foreign key (cascade, DEFERRABLE INITIALLY DEFERRED: the row is
 * written in the claim's pipeline) lives in migration 0019_pools.
 */
export const poolAssignments = pgTable(
  'pool_assignments',
  {
    claimId: uuid('claim_id').primaryKey(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    poolId: uuid('pool_id').notNull().references(() => pools.id, { onDelete: 'cascade' }),
    ownerId: uuid('owner_id').notNull().references(() => owners.id, { onDelete: 'cascade' }),
    reason: text('reason', { enum: POOL_ASSIGNMENT_REASONS }).notNull(),
    loadMinutes: integer('load_minutes').notNull(),
    weight: integer('weight').notNull(),
    createdAt: instant('created_at').notNull().defaultNow(),
  },
  (t) => [
    index('pool_assignments_pool_at_idx').on(t.poolId, t.createdAt),
    oneOf('pool_assignments_reason_check', t.reason, POOL_ASSIGNMENT_REASONS),
  ],
);
