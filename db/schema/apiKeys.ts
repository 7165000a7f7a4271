import { foreignKey, index, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant } from './columns';
import { agents } from './agents';
import { customers } from './customers';

/**
 * API keys (`ak_...`). Only the SHA-256 hash of the key is stored (looked up
 * by hash) and a short display prefix; the key itself is shown once.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: idColumn(),
    customerId: uuid('customer_id').notNull().references(() => customers.id, { onDelete: 'cascade' }),
    agentId: uuid('agent_id').notNull(),
    name: text('name'),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    /** Overrides the agent's display_time_zone for calls made with this key (docs/api.md "The caller's time zone"). */
    displayTimeZone: text('display_time_zone'),
    createdAt: createdAt(),
    lastUsedAt: instant('last_used_at'),
    revokedAt: instant('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_agent_idx').on(t.agentId),
    // The key's agent belongs to the key's customer.
    foreignKey({ name: 'api_keys_agent_fk', columns: [t.customerId, t.agentId], foreignColumns: [agents.customerId, agents.id] }).onDelete('cascade'),
  ],
);
