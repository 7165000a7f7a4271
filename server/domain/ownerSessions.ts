import { and, asc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { owners, ownerSessions } from '@/db/schema';
import { newId } from './ids';

/**
 * Dashboard sessions, one per signed-in browser (docs/dashboard.md "Sessions"). The session
 * cookie names its row (`sid`); "Sign out" ends that row alone, "Sign out everywhere" ends
 * every row of the owner and moves the owner's session version on (which also ends cookies
 * issued before sessions had rows, and is what a password change does).
 */

/** How stale last_seen_at may get before a request moves it (a write at most this often per session). */
const SEEN_EVERY_MS = 5 * 60_000;
/** A browser's own description, cut to this length. */
const USER_AGENT_MAX = 300;

export type OwnerSessionView = { session_id: string; user_agent: string | null; created_at: string; last_seen_at: string; current: boolean };

/** A new session row at sign-in; its id goes into the session cookie. */
export async function startOwnerSession(db: Executor, ownerId: string, userAgent: string | null, now: Date): Promise<string> {
  const id = newId(now.getTime());
  await db.insert(ownerSessions).values({ id, ownerId, userAgent: userAgent?.slice(0, USER_AGENT_MAX) ?? null, createdAt: now, lastSeenAt: now });
  return id;
}

/** Whether the session is still on; a request older than SEEN_EVERY_MS since the last one moves last_seen_at. */
export async function ownerSessionActive(db: Executor, ownerId: string, sessionId: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ endedAt: ownerSessions.endedAt, lastSeenAt: ownerSessions.lastSeenAt })
    .from(ownerSessions)
    .where(and(eq(ownerSessions.id, sessionId), eq(ownerSessions.ownerId, ownerId)))
    .limit(1);
  if (!row || row.endedAt) return false;
  if (now.getTime() - row.lastSeenAt.getTime() > SEEN_EVERY_MS) {
    await db
      .update(ownerSessions)
      .set({ lastSeenAt: now })
      .where(and(eq(ownerSessions.id, sessionId), lt(ownerSessions.lastSeenAt, new Date(now.getTime() - SEEN_EVERY_MS))));
  }
  return true;
}

/** "Sign out" in one browser: its own session ends, the owner's other browsers stay signed in. */
export async function endOwnerSession(db: Executor, ownerId: string, sessionId: string, now: Date): Promise<void> {
  await db
    .update(ownerSessions)
    .set({ endedAt: now })
    .where(and(eq(ownerSessions.id, sessionId), eq(ownerSessions.ownerId, ownerId), isNull(ownerSessions.endedAt)));
}

/** "Sign out everywhere": every session of the owner ends, this browser's included. */
export async function endAllOwnerSessions(db: Executor, ownerId: string, now: Date): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(ownerSessions).set({ endedAt: now }).where(and(eq(ownerSessions.ownerId, ownerId), isNull(ownerSessions.endedAt)));
    await tx
      .update(owners)
      .set({ sessionVersion: sql`${owners.sessionVersion} + 1`, updatedAt: now })
      .where(eq(owners.id, ownerId));
  });
}

/** The owner's signed-in browsers, the most recently seen first; `current` marks the asking one. */
export async function listOwnerSessions(db: Executor, ownerId: string, currentId: string | null): Promise<OwnerSessionView[]> {
  const rows = await db
    .select()
    .from(ownerSessions)
    .where(and(eq(ownerSessions.ownerId, ownerId), isNull(ownerSessions.endedAt)))
    .orderBy(asc(ownerSessions.createdAt));
  return rows
    .map((r) => ({ session_id: r.id, user_agent: r.userAgent, created_at: r.createdAt.toISOString(), last_seen_at: r.lastSeenAt.toISOString(), current: r.id === currentId }))
    .sort((a, b) => Number(b.current) - Number(a.current) || b.last_seen_at.localeCompare(a.last_seen_at));
}
