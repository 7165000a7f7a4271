import type { Db } from '@/db/client';
import { completeKeyRecord, deleteExpiredKeyRecord, deleteKeyRecord, findKeyRecord, insertKeyRecord, takeOverKeyRecord, type KeyScope } from '@/db/hot/idempotency';
import { DomainError } from '@/server/domain/errors';
import { newId, sha256Hex } from '@/server/domain/ids';

/** An in-flight request older than this is presumed dead (its process crashed) and its key may be taken over. */
const IDEMPOTENCY_LEASE_MS = 30_000;

export type IdempotencyScope = KeyScope;
export type IdempotencyStart = { kind: 'proceed'; recordId: string } | { kind: 'replay'; status: number; bodyText: string };

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

export function validIdempotencyKey(key: string): boolean {
  return KEY_RE.test(key);
}

/** Fingerprint of a request: its canonical JSON body (keys sorted) and query. */
export function requestFingerprint(body: unknown, query: string): string {
  return sha256Hex(`${canonicalJson(body ?? null)}\n${query}`);
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * Claim an Idempotency-Key for a request, or learn that it was already used:
 * a finished request is replayed, a running one answers IDEMPOTENCY_IN_FLIGHT,
 * a different body IDEMPOTENCY_CONFLICT.
 */
export async function beginIdempotent(db: Db, scope: IdempotencyScope, fingerprint: string, now: Date): Promise<IdempotencyStart> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await insertKeyRecord(db, {
      id: newId(),
      ...scope,
      fingerprint,
      lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
      now,
    });
    if (inserted) return { kind: 'proceed', recordId: inserted };

    const existing = await findKeyRecord(db, scope);
    if (!existing) continue; // removed meanwhile (released or expired): try again
    if (existing.expiresAt <= now) {
      await deleteExpiredKeyRecord(db, existing.id, now);
      continue;
    }
    if (existing.fingerprint !== fingerprint) {
      throw new DomainError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was already used with a different request body');
    }
    if (existing.state === 'done') {
      return { kind: 'replay', status: existing.responseStatus ?? 200, bodyText: existing.responseBody ?? '{}' };
    }
    if (existing.lockedUntil && existing.lockedUntil > now) throw inFlight();
    // The request holding the key stopped without finishing (crash): take the key over.
    const taken = await takeOverKeyRecord(db, existing.id, now, new Date(now.getTime() + IDEMPOTENCY_LEASE_MS));
    if (taken) return { kind: 'proceed', recordId: taken };
    throw inFlight();
  }
  throw inFlight();
}

/** Store the final response of a claimed key (4xx included; never 5xx or 429). */
export async function completeIdempotent(db: Db, recordId: string, status: number, bodyText: string): Promise<void> {
  await completeKeyRecord(db, recordId, status, bodyText);
}

/**
 * The body a replay answers: a success's stored text byte for byte; an error's stored body
 * (kept without `pending_notifications`, which is never stored or replayed) with the agent's
 * current queue added, as any error answer carries it.
 */
export function replayBody(stored: { status: number; bodyText: string }, pending: unknown[] | null): string {
  if (!pending) return stored.bodyText;
  const body = JSON.parse(stored.bodyText) as Record<string, unknown>;
  return JSON.stringify({ ...body, pending_notifications: pending });
}

/**
 * Free a claimed key (the request failed with 5xx or 429, so a retry must run again). Only while
 * it is in flight: a claim stores its answer in its own transaction, so a record that is done
 * committed with its effect, even when the COMMIT's answer was lost with the connection (a
 * failover: docs/operations.md "High availability"), and a retry must replay it.
 */
export async function releaseIdempotent(db: Db, recordId: string): Promise<void> {
  await deleteKeyRecord(db, recordId);
}

/** Delays of releaseIdempotentLater's attempts: a failover takes seconds; the lease (30 s) is the last resort. */
const RELEASE_RETRY_MS = [1_000, 2_000, 4_000, 8_000];

/** releaseIdempotent once the database answers again (it did not when the request failed), in the background. */
export function releaseIdempotentLater(db: Db, recordId: string, attempt = 0): void {
  const delay = RELEASE_RETRY_MS[attempt];
  if (delay === undefined) return;
  setTimeout(() => {
    releaseIdempotent(db, recordId).catch(() => releaseIdempotentLater(db, recordId, attempt + 1));
  }, delay).unref();
}

function inFlight(): DomainError {
  return new DomainError('IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed; retry later with the same key');
}
