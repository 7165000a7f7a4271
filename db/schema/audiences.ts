import { check, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { createdAt, idColumn } from './columns';
import { customers } from './customers';
import { verifiedDomains } from './domains';

/** A named set of requesters (by email or verified domain) that may see audience-only meeting types. */
export const audiences = pgTable(
  'audiences',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('audiences_customer_name_key').on(t.customerId, t.name)],
);

export const audienceMembers = pgTable(
  'audience_members',
  {
    id: idColumn(),
    audienceId: uuid('audience_id').notNull().references(() => audiences.id, { onDelete: 'cascade' }),
    email: text('email'),
    domainId: uuid('domain_id').references(() => verifiedDomains.id, { onDelete: 'restrict' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('audience_members_audience_idx').on(t.audienceId),
    check('audience_members_one_target', sql`(${t.email} is null) <> (${t.domainId} is null)`),
  ],
);
