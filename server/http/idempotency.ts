import { and, eq, lte, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { defer } from '@/db/hot/driver';
import { completeKeyRecord, insertKeyRecord } from '@/db/hot/idempotency';
import { idempotencyRecords } from '@/db/schema';
import { runClaimOperation, type ClaimOperation, type GateOwner } from '@/server/domain/claims/claimRunner';
import { DomainError } from '@/server/domain/errors';
import { newId, sha256Hex } from '@/server/domain/ids';

export { IDEMPOTENCY_RETENTION_MS } from '@/db/hot/idempotency';
/** An in-flight request older than this is presumed dead (its process crashed) and its key may be taken over. */
export const IDEMPOTENCY_LEASE_MS = 30_000;

export type IdempotencyScope = { agentId: string; method: string; path: string; key: string };
export type IdempotencyStart = { kind: 'proceed'; recordId: string } | { kind: 'replay'; status: number; bodyText: string };

const KEY_RE = /^[\x21-\x7e]{1,255}$/;

export function validIdempotencyKey(key: string): boolean {
  return KEY_RE.test(key);
}

/** Fingerprint of a request: its canonical JSON body (keys sorted) and query. */
export function requestFingerprint(body: unknown, query: string): string {
  return sha256Hex(`${canonicalJson(body ?? null)}\n${query}`);
}

export function canonicalJson(value: unknown): string {
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
  const where = and(
    eq(idempotencyRecords.agentId, scope.agentId),
    eq(idempotencyRecords.method, scope.method),
    eq(idempotencyRecords.path, scope.path),
    eq(idempotencyRecords.key, scope.key),
  );
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await insertKeyRecord(db, {
      id: newId(),
      ...scope,
      fingerprint,
      lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS),
      now,
    });
    if (inserted) return { kind: 'proceed', recordId: inserted };

    const [existing] = await db.select().from(idempotencyRecords).where(where).limit(1);
    if (!existing) continue; // removed meanwhile (released or expired): try again
    if (existing.expiresAt <= now) {
      await db.delete(idempotencyRecords).where(and(eq(idempotencyRecords.id, existing.id), lte(idempotencyRecords.expiresAt, now)));
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
    const [taken] = await db
      .update(idempotencyRecords)
      .set({ lockedUntil: new Date(now.getTime() + IDEMPOTENCY_LEASE_MS) })
      .where(and(eq(idempotencyRecords.id, existing.id), eq(idempotencyRecords.state, 'in_flight'), lte(idempotencyRecords.lockedUntil, now)))
      .returning({ id: idempotencyRecords.id });
    if (taken) return { kind: 'proceed', recordId: taken.id };
    throw inFlight();
  }
  throw inFlight();
}

/** Store the final response of a claimed key (4xx included; never 5xx or 429). */
export async function completeIdempotent(db: Db, recordId: string, status: number, bodyText: string): Promise<void> {
  await completeKeyRecord(db, recordId, status, bodyText);
}

/**
 * Run a claiming operation through the claim runner (server/domain/claims/claimRunner.ts) and,
 * for a claimed key, store its success answer (`status`, the value less `redact`ed fields) as
 * the transaction's last statement: it goes out with the claim, its audit row and COMMIT, so
 * the effect and its replayable answer commit together. Returns the value and, with a record,
 * the JSON text to answer (stored unless redacted); a rejection is thrown after commit.
 *
 * `gateOwner`: the owner an owner-naming call acts on, whose calendar gate (docs/calendars.md)
 * the runner runs. Its refusals come wrapped in a GateRefusal: the wrapper answers them, and
 * frees the key instead of storing them, as when the gate ran before the key was claimed.
 */
export async function runClaimWithAnswer<T>(
  db: Db,
  operation: ClaimOperation<T>,
  record: { recordId: string; status: number; redact: string[] } | null,
  gateOwner?: GateOwner,
): Promise<{ value: T; text: string | null }> {
  if (!record) return { value: await runClaimOperation(db, operation, gateOwner), text: null };
  let text: string | null = null;
  const value = await runClaimOperation(db, operation, gateOwner, (tx, v) => {
    text = JSON.stringify(v);
    defer(tx, completeKeyRecord(tx, record.recordId, record.status, record.redact.length ? JSON.stringify(redact(v, record.redact)) : text));
  });
  return { value, text };
}

/** A response body less fields never stored (secrets shown once); a replay answers them as null. */
export function redact(body: unknown, fields: string[]): unknown {
  if (!fields.length || !body || typeof body !== 'object') return body;
  const copy = { ...(body as Record<string, unknown>) };
  for (const f of fields) if (f in copy) copy[f] = null;
  return copy;
}

/** Free a claimed key (the request failed with 5xx or 429, so a retry must run again). */
export async function releaseIdempotent(db: Db, recordId: string): Promise<void> {
  await db.delete(idempotencyRecords).where(eq(idempotencyRecords.id, recordId));
}

/** Remove records past retention (called by the sweeper; correctness never depends on it). */
export async function sweepIdempotency(db: Db, now: Date): Promise<number> {
  const rows = await db
    .delete(idempotencyRecords)
    .where(lte(idempotencyRecords.expiresAt, now))
    .returning({ id: sql`1` });
  return rows.length;
}

function inFlight(): DomainError {
  return new DomainError('IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed; retry later with the same key');
}
