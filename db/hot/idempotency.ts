import { and, eq, lte, sql } from 'drizzle-orm';
import { idempotencyRecords } from '../schema';
import type { Executor } from '../client';
import { names } from './columns';
import { queryRows } from './driver';

/** Idempotency keys are retained 24 h: a replay within it answers the stored response, after it the key may name a new request. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;

const k = names(idempotencyRecords);

/** Every keyed request runs these two (server/http/idempotency.ts, the protocol over this store). */
export const CLAIM_KEY = `insert into idempotency_records (${k.id}, ${k.agentId}, ${k.method}, ${k.path}, ${k.key}, ${k.fingerprint}, ${k.state}, ${k.lockedUntil}, ${k.createdAt}, ${k.expiresAt})
  values ($1, $2, $3, $4, $5, $6, 'in_flight', $7, $8, $9) on conflict do nothing returning ${k.id}`;
export const COMPLETE_KEY = `update idempotency_records set ${k.state} = 'done', ${k.lockedUntil} = null, ${k.responseStatus} = $2, ${k.responseBody} = $3 where ${k.id} = $1`;

export type KeyClaim = { id: string; agentId: string; method: string; path: string; key: string; fingerprint: string; lockedUntil: Date; now: Date };

/** Insert an in-flight record for a key; its id, or undefined when the key already has one. */
export async function insertKeyRecord(db: Executor, r: KeyClaim): Promise<string | undefined> {
  const [inserted] = await queryRows(db, CLAIM_KEY, [
    r.id,
    r.agentId,
    r.method,
    r.path,
    r.key,
    r.fingerprint,
    r.lockedUntil.toISOString(),
    r.now.toISOString(),
    new Date(r.now.getTime() + IDEMPOTENCY_RETENTION_MS).toISOString(),
  ]);
  return inserted?.id as string | undefined;
}

/** Store the final response of a key's request (issued at once; await it, or defer it in the effect's transaction). */
export function completeKeyRecord(db: Executor, recordId: string, status: number, bodyText: string): Promise<unknown> {
  return queryRows(db, COMPLETE_KEY, [recordId, status, bodyText]);
}

export type KeyRecord = typeof idempotencyRecords.$inferSelect;
export type KeyScope = { agentId: string; method: string; path: string; key: string };

/** The record of a key, if any (read after a lost insert race). */
export async function findKeyRecord(db: Executor, s: KeyScope): Promise<KeyRecord | undefined> {
  const [row] = await db
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.agentId, s.agentId), eq(idempotencyRecords.method, s.method), eq(idempotencyRecords.path, s.path), eq(idempotencyRecords.key, s.key)))
    .limit(1);
  return row;
}

/** Remove one record if it is past retention (so its key may name a new request). */
export async function deleteExpiredKeyRecord(db: Executor, recordId: string, now: Date): Promise<void> {
  await db.delete(idempotencyRecords).where(and(eq(idempotencyRecords.id, recordId), lte(idempotencyRecords.expiresAt, now)));
}

/** Take over an in-flight record whose lease ran out (its request crashed); its id, or undefined when another took it or it finished. */
export async function takeOverKeyRecord(db: Executor, recordId: string, now: Date, lockedUntil: Date): Promise<string | undefined> {
  const [taken] = await db
    .update(idempotencyRecords)
    .set({ lockedUntil })
    .where(and(eq(idempotencyRecords.id, recordId), eq(idempotencyRecords.state, 'in_flight'), lte(idempotencyRecords.lockedUntil, now)))
    .returning({ id: idempotencyRecords.id });
  return taken?.id;
}

/**
 * Free a claimed key (its request failed with 5xx or 429, so a retry must run again), only while
 * it is in flight: a record that is done committed with its effect (docs/operations.md "High
 * availability"), and a retry must replay it.
 */
export async function deleteKeyRecord(db: Executor, recordId: string): Promise<void> {
  await db.delete(idempotencyRecords).where(and(eq(idempotencyRecords.id, recordId), eq(idempotencyRecords.state, 'in_flight')));
}

/** Remove records past retention (the sweeper; correctness never depends on it); how many. */
export async function sweepKeyRecords(db: Executor, now: Date): Promise<number> {
  const rows = await db.delete(idempotencyRecords).where(lte(idempotencyRecords.expiresAt, now)).returning({ id: sql`1` });
  return rows.length;
}
