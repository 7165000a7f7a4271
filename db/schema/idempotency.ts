import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant, oneOf } from './columns';
import { agents } from './agents';

export const IDEMPOTENCY_STATES = ['in_flight', 'done'] as const;

/**
 * One row per (agent, method, path, Idempotency-Key), kept 24 h.
 * `state` in_flight carries a lease (`locked_until`) so a request whose
 * process died does not block its key for the whole retention period.
 */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    id: idColumn(),
    agentId: uuid('agent_id').notNull().references(() => agents.id, { onDelete: 'cascade' }),
    method: text('method').notNull(),
    path: text('path').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    state: text('state', { enum: IDEMPOTENCY_STATES }).notNull(),
    lockedUntil: instant('locked_until'),
    responseStatus: integer('response_status'),
    /** The response body exactly as sent (text, not jsonb, so replays are byte-identical). */
    responseBody: text('response_body'),
    createdAt: createdAt(),
    expiresAt: instant('expires_at').notNull(),
  },
  (t) => [
    uniqueIndex('idempotency_scope_key').on(t.agentId, t.method, t.path, t.key),
    index('idempotency_expires_idx').on(t.expiresAt),
    oneOf('idempotency_records_state_check', t.state, IDEMPOTENCY_STATES),
  ],
);
