import { index, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, instant } from './columns';
import { owners } from './owners';

/**
 * One signed-in browser of an owner (docs/dashboard.md "Sessions"): made at sign-in, named by
 * the session cookie (its `sid`), ended by that browser's "Sign out" alone. "Sign out everywhere"
 * ends every row of the owner (and moves owners.session_version on, which also ends cookies
 * issued before sessions were recorded). last_seen_at moves at most every few minutes.
 */
export const ownerSessions = pgTable(
  'owner_sessions',
  {
    id: idColumn(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => owners.id, { onDelete: 'cascade' }),
    userAgent: text('user_agent'),
    createdAt: createdAt(),
    lastSeenAt: instant('last_seen_at').notNull().defaultNow(),
    endedAt: instant('ended_at'),
  },
  (t) => [index('owner_sessions_owner_idx').on(t.ownerId)],
);
