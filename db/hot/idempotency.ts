import { idempotencyRecords } from '../schema';
import type { Executor } from '../client';
import { names } from './columns';
import { queryRows } from './driver';

/** Idempotency keys are retained 24 h: a replay within it answers the stored response, after it the key may name a new request. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;

const k = names(idempotencyRecords);

/** Every keyed request runs these two (server/http/idempotency.ts). */
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
