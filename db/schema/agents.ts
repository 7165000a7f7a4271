import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, unique, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, sqlList } from './columns';
import { customers } from './customers';

export const PERMISSIONS = [
  'read_availability',
  'create_holds',
  'create_bookings',
  'preempt',
  'create_proposals',
  'manage_agents',
  'manage_customer',
  'manage_public_scheduling',
  'read_audit',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * A software agent acting for a customer. `owner_scope` is `org:*` (every
 * calendar owner) or `user:<email>` (one owner).
 */
export const agents = pgTable(
  'agents',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    ownerScope: text('owner_scope').notNull(),
    permissions: text('permissions').array().$type<Permission[]>().notNull().default([]),
    disabled: boolean('disabled').notNull().default(false),
    /** The zone answers add caller twins in when a call names none (docs/api.md "The caller's time zone"); null: none. */
    displayTimeZone: text('display_time_zone'),
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [
    index('agents_customer_idx').on(t.customerId),
    // Target of (customer_id, agent_id) foreign keys: an agent's keys and notifications stay in its customer.
    unique('agents_customer_id_key').on(t.customerId, t.id),
    check('agents_permissions_check', sql`${t.permissions} <@ array[${sqlList(PERMISSIONS)}]::text[]`),
    check('agents_owner_scope_check', sql`${t.ownerScope} = 'org:*' or ${t.ownerScope} like 'user:%@%'`),
  ],
);
