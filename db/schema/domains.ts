import { pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { customers } from './customers';

export const DOMAIN_STATUSES = ['pending', 'verified'] as const;

/** A domain a customer proves with a DNS TXT record `<record_name> = <record_value>`. */
export const verifiedDomains = pgTable(
  'verified_domains',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    domain: text('domain').notNull(),
    status: text('status', { enum: DOMAIN_STATUSES }).notNull().default('pending'),
    challengeName: text('challenge_name').notNull(),
    challengeValue: text('challenge_value').notNull(),
    createdAt: createdAt(),
    verifiedAt: instant('verified_at'),
  },
  (t) => [
    uniqueIndex('verified_domains_customer_domain_key').on(t.customerId, t.domain),
    oneOf('verified_domains_status_check', t.status, DOMAIN_STATUSES),
  ],
);
