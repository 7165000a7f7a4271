/**
 * In-process measurements of the booking benchmark: concurrent callers of createBooking (with or
 * without the Idempotency-Key bookkeeping around it), or of the same statements sent straight
 * through postgres.js (rawBooking.ts), on PostgreSQL or PGlite.
 */
import { performance } from 'node:perf_hooks';
import type postgres from 'postgres';
import type { Db } from '@/db/client';
import type { AgentActor } from '@/server/domain/access';
import { bookingClaim, bookingOwner, createBooking, rescheduleClaim, runAnsweredClaim, type ClaimOperation } from '@/server/domain/claims';
import { DomainError } from '@/server/domain/errors';
import { beginIdempotent, completeIdempotent, releaseIdempotent, requestFingerprint } from '@/server/http/idempotency';
import { fmt, loadAvg, log, stats, vacuumTables, waitIdle } from '../lib/measure';
import { BENCH_DB_URL, CLASS, CLIENTS, ownerEmail, OWNERS, PREFILL, SLOT_MS, slotStart, WAIT_IDLE_S, WARMUP_S } from './options';
import { rawBooking } from './rawBooking';
import { cpuSampler, type Row } from './sampler';
import type { Seeded } from './seed';

type DriveResult = { seconds: number; ok: number; samples: number[]; errors: Map<string, number>; busy: number | null; pgMsPerS: number; procMsPerS: number | null };

/**
 * `clients` loops calling op(seq) until warm-up + duration has passed; seq comes from one shared
 * counter. Counted: operations finishing inside the measured window; latency samples: those that
 * also started inside it.
 */
async function drive(clients: number, warmupS: number, durationS: number, op: (seq: number) => Promise<void>): Promise<DriveResult> {
  let seq = PREFILL;
  const t0 = performance.now();
  const from = t0 + warmupS * 1000;
  const to = from + durationS * 1000;
  const samples: number[] = [];
  const errors = new Map<string, number>();
  let ok = 0;
  const sampler = cpuSampler();
  sampler.startAt(from);
  let logged = false;
  let marked = false;
  const worker = async () => {
    while (performance.now() < to) {
      const s = performance.now();
      if (!marked && s >= from) {
        marked = true;
        sampler.mark();
      }
      let failed: string | null = null;
      try {
        await op(seq++);
      } catch (err) {
        failed = err instanceof DomainError ? `${err.code}${err.reason ? `/${err.reason}` : ''}` : String((err as Error)?.message ?? err).slice(0, 80);
        if (!logged) log(`    first error: ${err instanceof DomainError ? `${err.code}: ${err.message}` : (err as Error)?.stack ?? err}`);
        logged = true;
      }
      const f = performance.now();
      if (f < from || f > to) continue;
      if (failed) errors.set(failed, (errors.get(failed) ?? 0) + 1);
      else ok++;
      if (s >= from && !failed) samples.push(f - s);
    }
  };
  await Promise.all(Array.from({ length: clients }, worker));
  const cpu = sampler.stop();
  return { seconds: durationS, ok, samples, errors, busy: cpu.busy, pgMsPerS: cpu.pgMsPerS, procMsPerS: cpu.procMsPerS };
}

/**
 * One booking through createBooking. With a key, the idempotency bookkeeping the REST wrapper
 * (server/http/handler.ts) does around it: the record insert before (beginIdempotent,
 * autocommit) and the success response stored as the claim transaction's last statement (sent
 * with the claim, its audit row and COMMIT); a rejection is stored afterwards (completeIdempotent).
 */
function bookingOp(db: Db, actor: AgentActor, tag: string, withKey: boolean) {
  return async (seq: number) => {
    const email = ownerEmail(tag, Math.floor(Math.random() * OWNERS));
    const start = new Date(slotStart(seq));
    const end = new Date(slotStart(seq) + SLOT_MS);
    const now = new Date();
    const input = { ownerEmail: email, meetingClass: CLASS, start, end };
    if (!withKey) {
      await createBooking(db, actor, input, now, null);
      return;
    }
    const key = `${tag}-${seq}`;
    const body = { owner_email: email, meeting_class: CLASS, start: start.toISOString(), end: end.toISOString() };
    await keyedClaim(db, actor, { path: '/v1/bookings', key, body, status: 201, now }, bookingClaim(actor, input, now, key));
  };
}

/** A claim with the REST wrapper's idempotency bookkeeping around it (server/http/handler.ts): the key's record, the answer stored with the claim. */
async function keyedClaim<T>(db: Db, actor: AgentActor, req: { path: string; key: string; body: unknown; status: number; now: Date }, operation: ClaimOperation<T>): Promise<void> {
  const begun = await beginIdempotent(db, { agentId: actor.agentId, method: 'POST', path: req.path, key: req.key }, requestFingerprint(req.body, ''), req.now);
  if (begun.kind !== 'proceed') throw new Error(`idempotency key ${req.key} replayed`);
  try {
    await runAnsweredClaim(db, operation, { answer: { recordId: begun.recordId, status: () => req.status, redact: [], zone: null } });
  } catch (err) {
    if (err instanceof DomainError) await completeIdempotent(db, begun.recordId, 409, JSON.stringify({ error: { code: err.code } }));
    else await releaseIdempotent(db, begun.recordId);
    throw err;
  }
}

/**
 * The reschedule row (docs/api.md "Reschedule"): bookings made before the measurement (2 per
 * client, at slots before the measured ones) are moved, one per call, to the call's own fresh
 * slot on their owner, through the same claim runner and idempotency bookkeeping as a keyed
 * direct booking (bookingOp), so the two rows compare the decision and its transaction.
 */
export async function rescheduleOp(db: Db, actor: AgentActor, tag: string) {
  const pool: { id: string; ownerEmail: string; ownerId: string }[] = [];
  for (let i = 0; i < CLIENTS * 2; i++) {
    const email = ownerEmail(tag, i % OWNERS);
    const b = await createBooking(db, actor, { ownerEmail: email, meetingClass: CLASS, start: new Date(slotStart(-1 - i)), end: new Date(slotStart(-1 - i) + SLOT_MS) }, new Date(), null);
    if (!('booking_id' in b)) throw new Error('an approval policy held a bench booking');
    const owner = await bookingOwner(db, { kind: 'agent', actor }, b.booking_id);
    pool.push({ id: b.booking_id, ownerEmail: email, ownerId: owner.ownerId });
  }
  return async (seq: number) => {
    const b = pool[seq % pool.length];
    const start = new Date(slotStart(seq));
    const end = new Date(slotStart(seq) + SLOT_MS);
    const now = new Date();
    const key = `${tag}-${seq}`;
    const mover = { kind: 'agent' as const, actor };
    const operation = rescheduleClaim(mover, { customerId: actor.customerId, ownerId: b.ownerId, email: b.ownerEmail }, b.id, { start, end }, now, key);
    await keyedClaim(db, actor, { path: `/v1/bookings/${b.id}/reschedule`, key, body: { start: start.toISOString(), end: end.toISOString() }, status: 200, now }, operation);
  };
}

/** The same statements through postgres.js directly (bench/booking/rawBooking.ts), with a key. */
export function rawOp(client: postgres.Sql, seeded: Seeded, tag: string) {
  return async (seq: number) => {
    const email = ownerEmail(tag, Math.floor(Math.random() * OWNERS));
    const start = new Date(slotStart(seq));
    const end = new Date(slotStart(seq) + SLOT_MS);
    const body = { owner_email: email, meeting_class: CLASS, start: start.toISOString(), end: end.toISOString() };
    await rawBooking(client, { customerId: seeded.customerId, agentId: seeded.agentId, className: CLASS, ownerEmail: email, start, end, key: `${tag}-${seq}`, fingerprint: requestFingerprint(body, '') });
  };
}

function errorSummary(errors: Map<string, number>): string {
  if (errors.size === 0) return '0';
  return [...errors.entries()].map(([k, v]) => `${v} ${k}`).join(', ');
}

export async function inProcessRow(
  db: Db,
  actor: AgentActor,
  tag: string,
  withKey: boolean,
  mode: string,
  durationS: number,
  section: Row['section'] = 'tx',
  op: (seq: number) => Promise<void> = bookingOp(db, actor, tag, withKey),
): Promise<Row> {
  if (section === 'tx') await vacuumTables(BENCH_DB_URL); // PostgreSQL rows (not PGlite)
  await waitIdle(WAIT_IDLE_S);
  const load = loadAvg();
  log(`  ${mode}, ${withKey ? 'with' : 'without'} Idempotency-Key: ${CLIENTS} callers, ${WARMUP_S}+${durationS} s (load average ${load})`);
  const r = await drive(CLIENTS, WARMUP_S, durationS, op);
  const perSecond = r.ok / r.seconds;
  const row: Row = {
    section,
    mode,
    idem: withKey ? 'yes' : 'no',
    seconds: r.seconds,
    ok: r.ok,
    perSecond,
    lat: stats(r.samples),
    errors: errorSummary(r.errors),
    clientCpu: r.procMsPerS !== null && perSecond > 0 ? r.procMsPerS / perSecond : null,
    pgCpu: section === 'pglite' || !(perSecond > 0) ? null : r.pgMsPerS / perSecond,
    busy: r.busy,
    load,
  };
  log(`    ${fmt(perSecond)} bookings/s, p50 ${fmt(row.lat.p50)} ms, p99 ${fmt(row.lat.p99)} ms, errors ${row.errors}`);
  return row;
}
