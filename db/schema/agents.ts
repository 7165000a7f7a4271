import { boolean, index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant } from './columns';
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
    createdAt: createdAt(),
    updatedAt: instant('updated_at').notNull().defaultNow(),
  },
  (t) => [index('agents_customer_idx').on(t.customerId)],
);
