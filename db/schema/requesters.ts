import { index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant } from './columns';
import { customers } from './customers';
import { verifiedDomains } from './domains';

/** An external requester known to a customer (by email). */
export const requesterIdentities = pgTable(
  'requester_identities',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    domainId: uuid('domain_id').references(() => verifiedDomains.id, { onDelete: 'restrict' }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('requester_identities_customer_email_key').on(t.customerId, t.email)],
);

/** `rc_` requester credentials; stored as SHA-256 hashes with a display prefix. */
export const requesterCredentials = pgTable(
  'requester_credentials',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    identityId: uuid('identity_id').notNull().references(() => requesterIdentities.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: createdAt(),
    revokedAt: instant('revoked_at'),
  },
  (t) => [uniqueIndex('requester_credentials_token_hash_key').on(t.tokenHash), index('requester_credentials_identity_idx').on(t.identityId)],
);
