import fs from 'node:fs';
import { expect, test, type TestInfo } from '../test';
import { baseUrls, usesPostgres, usesRedis } from '../servers';
import {
  call,
  conflictProblems,
  iso,
  KeyPool,
  mintKeys,
  newCustomer,
  newOwner,
  nowMs,
  openDb,
  overlappingClaims,
  ownerIdOf,
  paced,
  pacedWaits,
  parse,
  percentile,
  recorded,
  setPassword,
  signIn,
  suffix,
  tallyStatuses,
  type Customer,
  type HistoryEvent,
  type Sql,
} from './lib';

/**
 * Concurrency histories (issue "Proof of reliability, security and speed",
 * item 1). For every path that claims an owner's time, ROUNDS rounds of
 * CONCURRENCY requests race for one slot, alternating between the two server
 * instances that share PostgreSQL and Redis. Each request's invoke and
 * complete times, status and body are recorded (a Jepsen-style history,
 * attached to the test as JSON) and checked:
 *
 *  - exactly one winner per round, and no 5xx, no 429, no lost connection;
 *  - every loser is a 409 whose code (and arbitration reason / reason_code)
 *    is valid per docs/api.md and names a conflict with the winner;
 *  - real-time order: no loser completed before the winner was invoked
 *    (nothing is refused for a conflict that did not exist yet);
 *  - every winner exists afterwards (GET) with the slot it won, and the
 *    database holds exactly that one active claim on the slot;
 *  - finally, no two active claims of any owner overlap (self-join).
 *
 * Rate limits: holds, bookings and confirm allow 120/min per API key, so a
 * pool of keys is minted and no key is used more than 100 times per policy
 * over the whole file. Set-up and verification calls (agents, keys, owners,
 * proposals, GETs) count against the global 600/min per client IP, which
 * every request from this machine shares: `paced` waits on 429.
 *
 * RACE_ROUNDS and RACE_CONCURRENCY override the defaults (5 and 256). The
 * default keeps local runs short; CI (.ci/run) sets RACE_ROUNDS=20, the full
 * proof (see docs/reliability.md for both timings).
 */
const ROUNDS = Number(process.env.RACE_ROUNDS || 5);
const CONCURRENCY = Number(process.env.RACE_CONCURRENCY || 256);
const SLOT_MINUTES = 30;
const KEY_BUDGET = 100;

type PathName = 'booking' | 'confirm' | 'candidate-hold' | 'window-hold' | 'group-hold' | 'proposal-approval' | 'mixed' | 'reschedule';

type World = {
  customer: Customer;
  pool: KeyPool;
  sql: Sql;
  owners: Record<PathName, string>;
  ownerIds: string[];
  /** Signed-in session of the proposal owner (null: the proposal path is not available). */
  approval: { cookie: string } | { skip: string };
  /** First slot start (a day boundary well in the future). */
  base: number;
};

let world: World | undefined;
const summaries: string[] = [];

function slotOf(round: number): { start: string; end: string; startMs: number; endMs: number } {
  const startMs = world!.base + round * 2 * 3_600_000;
  const endMs = startMs + SLOT_MINUTES * 60_000;
  return { start: iso(startMs), end: iso(endMs), startMs, endMs };
}

const instance = (i: number) => baseUrls[i % baseUrls.length];

/** Keys per policy this file needs, from the request mix below (mixed rounds split four ways). */
function keysNeeded(): number {
  const holds = ROUNDS * CONCURRENCY * 3 + ROUNDS + ROUNDS * Math.ceil(CONCURRENCY / 2);
  // Direct bookings, the mixed rounds' quarter, and the reschedule rounds' direct bookings.
  const bookings = ROUNDS * CONCURRENCY + ROUNDS * Math.ceil(CONCURRENCY / 4) + ROUNDS * CONCURRENCY;
  const confirm = ROUNDS * CONCURRENCY;
  return Math.ceil((Math.max(holds, bookings, confirm) * 1.05) / KEY_BUDGET);
}

async function attachHistory(testInfo: TestInfo, name: string, history: HistoryEvent[]): Promise<void> {
  const t0 = Math.min(...history.map((e) => e.invoke));
  const rows = history.map((e) => ({ ...e, invoke: +(e.invoke - t0).toFixed(3), complete: +(e.complete - t0).toFixed(3), text: e.text.slice(0, 600) }));
  // Written to the test's output folder (kept after passing runs) and attached to the report.
  const file = testInfo.outputPath(`history-${name}.json`);
  fs.writeFileSync(file, JSON.stringify({ t0: new Date(t0).toISOString(), events: rows }));
  await testInfo.attach(`history-${name}.json`, { path: file, contentType: 'application/json' });
}

/** Probe whether owner approval of proposals exists in this build (another engineer is landing it). */
async function approvalAvailability(customer: Customer, ownerEmail: string): Promise<World['approval']> {
  const probe = await paced(baseUrls[0], 'POST', '/v1/booking-proposals', {
    key: customer.adminKey,
    body: { owner_email: ownerEmail, meeting_class: 'internal', duration_minutes: 30, window: { start: 'x', end: 'y' }, attendees: [] },
  });
  if (probe.status === 404) return { skip: `POST /v1/booking-proposals is not in this build (404 ${probe.json?.error?.code})` };
  const password = `pw-${suffix()}-${suffix()}`;
  await setPassword(ownerEmail, password);
  const cookie = await signIn(baseUrls[0], ownerEmail, password);
  for (const base of baseUrls) {
    const pending = await call(base, 'GET', '/api/trpc/proposals.listPending', { cookie });
    if (pending.status === 404) return { skip: `tRPC proposals.* is not in this build (${base}: 404)` };
    if (pending.status !== 200) throw new Error(`the owner's session does not work on ${base}: ${pending.status} ${pending.text.slice(0, 300)}`);
  }
  return { cookie };
}

type Racer = { op: string; process: string; send: (history: HistoryEvent[], meta: { op: string; round: number; process: string }) => Promise<HistoryEvent> };
type RoundSetup = { racers: Racer[]; context?: Record<string, unknown> };
type Winner = { ev: HistoryEvent; claimId: string; claimKind: 'hold' | 'booking' };

/**
 * One path's race: ROUNDS rounds of `setup` (build CONCURRENCY racers for
 * `round`), fire them all at once, then `judge` the round (returns problems).
 */
async function race(
  name: PathName,
  testInfo: TestInfo,
  setup: (round: number) => Promise<RoundSetup>,
  judge: (round: number, events: HistoryEvent[], winner: HistoryEvent | undefined, setupContext: Record<string, unknown> | undefined) => Promise<{ problems: string[]; winner?: Winner }>,
  /** An audited action of the round's set-up, not counted as a racer's decision (confirm: the hold). */
  setupAction?: string,
): Promise<void> {
  const history: HistoryEvent[] = [];
  const problems: string[] = [];
  const winners: Winner[] = [];
  const roundMs: number[] = [];
  const started = nowMs();
  for (let round = 0; round < ROUNDS; round++) {
    const { racers, context } = await setup(round);
    const roundStart = nowMs();
    const events = await Promise.all(racers.map((r) => r.send(history, { op: r.op, round, process: r.process })));
    roundMs.push(nowMs() - roundStart);

    const broken = events.filter((e) => e.status === 0 || e.status >= 500 || e.status === 429);
    for (const e of broken.slice(0, 5)) problems.push(`round ${round}: ${e.op} via ${e.instance} got ${e.status || e.error} ${e.text.slice(0, 300)}`);
    if (broken.length > 5) problems.push(`round ${round}: ${broken.length - 5} more 5xx/429/no-response answers`);
    const ok = events.filter((e) => e.status >= 200 && e.status < 300);
    if (ok.length !== 1) {
      problems.push(`round ${round}: ${ok.length} winners instead of exactly 1: ${JSON.stringify(tallyStatuses(events))}`);
    }
    const winner = ok.length === 1 ? ok[0] : undefined;
    if (winner) {
      // Real-time order: a request refused for a conflict must not complete before the winner was even sent.
      const early = events.filter((e) => e !== winner && e.status === 409 && e.complete < winner.invoke);
      for (const e of early.slice(0, 3)) {
        problems.push(`round ${round}: ${e.op} refused (${e.code}/${e.reason ?? ''}) at +${(e.complete - started).toFixed(1)} ms, before the winner was invoked at +${(winner.invoke - started).toFixed(1)} ms`);
      }
    }
    const judged = await judge(round, events, winner, context);
    problems.push(...judged.problems);
    if (judged.winner) winners.push(judged.winner);
  }
  const totalMs = nowMs() - started;

  // The database: per round exactly one active claim overlaps the slot, and it is the winner's.
  const ownerId = await ownerIdOf(world!.sql, world!.customer.customerId, world!.owners[name]);
  const active = await world!.sql<{ id: string; kind: string; start_at: Date; end_at: Date }[]>`
    select id, kind, start_at, end_at from claims where owner_id = ${ownerId} and status in ('active', 'confirmed') order by start_at`;
  for (let round = 0; round < ROUNDS; round++) {
    const slot = slotOf(round);
    const on = active.filter((c) => c.start_at.getTime() < slot.endMs + 15 * 60_000 && c.end_at.getTime() > slot.startMs);
    const w = winners.find((x) => x.ev.round === round);
    if (on.length !== 1 || (w && on[0].id !== w.claimId)) {
      problems.push(`round ${round}: database holds ${on.length} active claim(s) on the slot (${on.map((c) => `${c.kind} ${c.id}`).join(', ')}); winner ${w?.claimKind} ${w?.claimId}`);
    }
  }
  // The audit log: every accepted decision on a slot is audited once, in the transaction that made it
  // (the claiming decisions only: proposal and requester events and preemptions are rows of their own).
  const decisions = ['hold.create', 'booking.create', 'booking.confirm', 'proposal.review', 'booking.reschedule'].filter((a) => a !== setupAction);
  const accepts = await world!.sql<{ start_at: Date; action: string }[]>`
    select start_at, action from audit_log where owner_id = ${ownerId} and outcome = 'accept' and start_at is not null and action in ${world!.sql(decisions)}`;
  for (let round = 0; round < ROUNDS; round++) {
    const slot = slotOf(round);
    const on = accepts.filter((a) => a.start_at.getTime() >= slot.startMs && a.start_at.getTime() < slot.endMs + 15 * 60_000);
    if (on.length !== 1) problems.push(`round ${round}: ${on.length} accepted decisions audited on the slot (${on.map((a) => a.action).join(', ')}), expected 1`);
  }
  const overlaps = await overlappingClaims(world!.sql, [ownerId]);
  for (const o of overlaps) problems.push(`overlap: ${o.a_kind} ${o.a} [${o.a_start.toISOString()}, ${o.a_end.toISOString()}) and ${o.b_kind} ${o.b} [${o.b_start.toISOString()}, ${o.b_end.toISOString()})`);

  await attachHistory(testInfo, name, history);
  const latencies = history.map((e) => e.complete - e.invoke);
  const line =
    `${name}: ${ROUNDS} rounds x ${CONCURRENCY} = ${history.length} requests in ${(totalMs / 1000).toFixed(1)} s ` +
    `(round p50 ${percentile(roundMs, 50).toFixed(0)} ms, max ${Math.max(...roundMs).toFixed(0)} ms; request p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms); ` +
    `winners ${winners.length}/${ROUNDS} ${JSON.stringify(tallyOps(winners.map((x) => x.ev)))}; answers ${JSON.stringify(tallyStatuses(history))}; problems ${problems.length}`;
  summaries.push(line);
  console.log(`[races] ${line}`);
  expect(problems, `${name}: ${problems.length} problem(s)`).toEqual([]);
}

function tallyOps(events: HistoryEvent[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) out[e.op] = (out[e.op] ?? 0) + 1;
  return out;
}

/** A direct booking of `owner`'s slot with the next pool key (bookings policy), sent to instance `i`. */
function bookingRacer(owner: string, slot: { start: string; end: string }, i: number): Racer {
  const k = world!.pool.take('bookings');
  return {
    op: 'booking',
    process: `key${k.index}`,
    send: (h, meta) => recorded(h, meta, instance(i), 'POST', '/v1/bookings', { key: k.key, body: { owner_email: owner, meeting_class: 'internal', start: slot.start, end: slot.end } }),
  };
}

/** GET a booking and check it is confirmed on the slot. */
async function bookingProblems(round: number, bookingId: string, slot: { start: string; end: string }, holdId: string | null = null): Promise<string[]> {
  const r = await paced(instance(round + 1), 'GET', `/v1/bookings/${bookingId}`, { key: world!.customer.adminKey });
  if (r.status !== 200) return [`round ${round}: GET booking ${bookingId}: ${r.status} ${r.text.slice(0, 300)}`];
  const b = r.json;
  if (b.status !== 'confirmed' || b.start !== slot.start || b.end !== slot.end || b.hold_id !== holdId) {
    return [`round ${round}: booking ${bookingId} read back as ${r.text.slice(0, 300)}`];
  }
  return [];
}

test.describe('concurrency histories: every path that claims time, two instances', () => {
  test.skip(!usesPostgres || !usesRedis || baseUrls.length < 2, 'needs two instances sharing PostgreSQL and Redis (E2E_DATABASE_URL and E2E_REDIS_URL)');

  test.beforeAll(async () => {
    test.setTimeout(240_000);
    const t = nowMs();
    const customer = await newCustomer('E2E races', baseUrls[0]);
    const names: PathName[] = ['booking', 'confirm', 'candidate-hold', 'window-hold', 'group-hold', 'proposal-approval', 'mixed', 'reschedule'];
    const owners = {} as Record<PathName, string>;
    for (const n of names) owners[n] = await newOwner(customer, baseUrls[0], `race-${n}`);
    const keysPerAgent = 14;
    const agents = Math.ceil(keysNeeded() / keysPerAgent);
    const keys = await mintKeys(customer, baseUrls, agents, keysPerAgent);
    const sql = openDb();
    const ownerIds = await Promise.all(names.map((n) => ownerIdOf(sql, customer.customerId, owners[n])));
    const approval = await approvalAvailability(customer, owners['proposal-approval']);
    if ('cookie' in approval) {
      // The mixed path's approvals are the mixed owner's: sign them in too.
      const password = `pw-${suffix()}-${suffix()}`;
      await setPassword(owners.mixed, password);
      (approval as { cookie: string; mixedCookie?: string }).mixedCookie = await signIn(baseUrls[1], owners.mixed, password);
    }
    const day = 24 * 3_600_000;
    world = { customer, pool: new KeyPool(keys, KEY_BUDGET), sql, owners, ownerIds, approval, base: Math.floor(Date.now() / day) * day + 9 * day };
    console.log(`[races] set-up: ${agents} agents, ${keys.length} keys, ${names.length} owners in ${((nowMs() - t) / 1000).toFixed(1)} s; proposal approval: ${'cookie' in approval ? 'available' : approval.skip}`);
  });

  test.afterAll(async () => {
    if (world) {
      console.log(`[races] key use per policy (max per key, budget ${KEY_BUDGET}): ${JSON.stringify(world.pool.maxUse())}; set-up calls that waited for the per-IP limit: ${pacedWaits.count}`);
      for (const s of summaries) console.log(`[races] ${s}`);
      await world.sql.end();
    }
  });

  test(`direct booking: ${CONCURRENCY} concurrent POST /v1/bookings for one slot, ${ROUNDS} rounds: exactly one 201 each`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    await race(
      'booking',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        return { racers: Array.from({ length: CONCURRENCY }, (_, i) => bookingRacer(w.owners.booking, slot, i)) };
      },
      async (round, events, winner) => {
        const problems = events.filter((e) => e !== winner && e.status < 500 && e.status !== 0).flatMap((e) => conflictProblems(e, ['ARBITRATION_REJECTED']));
        if (!winner) return { problems };
        if (winner.status !== 201) problems.push(`round ${round}: winner answered ${winner.status}, expected 201`);
        const id = parse(winner)?.booking_id;
        problems.push(...(await bookingProblems(round, id, slotOf(round))));
        return { problems, winner: { ev: winner, claimId: id, claimKind: 'booking' } };
      },
    );
  });

  test(`confirm: ${CONCURRENCY} agents confirm one hold at once, ${ROUNDS} rounds: exactly one 200, the rest HOLD_ALREADY_PROMOTED`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    await race(
      'confirm',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        const hk = w.pool.take('holds');
        const hold = await call(instance(round), 'POST', '/v1/holds', {
          key: hk.key,
          body: { owner_email: w.owners.confirm, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: slot.start, end: slot.end } },
        });
        expect(hold.status, hold.text).toBe(200);
        const holdId: string = hold.json.hold_id;
        const racers = Array.from({ length: CONCURRENCY }, (_, i): Racer => {
          const k = w.pool.take('confirm');
          return {
            op: 'confirm',
            process: `key${k.index}`,
            send: (h, meta) => recorded(h, meta, instance(i), 'POST', `/v1/bookings/${holdId}/confirm`, { key: k.key, body: { start: slot.start, end: slot.end } }),
          };
        });
        return { racers, context: { holdId } };
      },
      async (round, events, winner, ctx) => {
        const holdId = ctx!.holdId as string;
        const problems = events.filter((e) => e !== winner && e.status < 500 && e.status !== 0).flatMap((e) => conflictProblems(e, ['HOLD_ALREADY_PROMOTED']));
        if (!winner) return { problems };
        if (winner.status !== 200) problems.push(`round ${round}: winner answered ${winner.status}, expected 200`);
        const id = parse(winner)?.booking_id;
        for (const e of events) {
          const b = parse(e);
          if (e.code === 'HOLD_ALREADY_PROMOTED' && b?.booking_id !== id) problems.push(`round ${round}: HOLD_ALREADY_PROMOTED names booking ${b?.booking_id}, the winner made ${id}`);
        }
        problems.push(...(await bookingProblems(round, id, slotOf(round), holdId)));
        const hold = await paced(instance(round), 'GET', `/v1/holds/${holdId}`, { key: w.customer.adminKey });
        if (hold.status !== 200 || hold.json.status !== 'promoted' || hold.json.booking_id !== id) problems.push(`round ${round}: hold read back as ${hold.status} ${hold.text.slice(0, 300)}`);
        return { problems, winner: { ev: winner, claimId: id, claimKind: 'booking' } };
      },
      'hold.create',
    );
  });

  test(`candidate hold: ${CONCURRENCY} concurrent POST /v1/holds (candidate) for one slot, ${ROUNDS} rounds: exactly one 200 each`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    await race(
      'candidate-hold',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        const racers = Array.from({ length: CONCURRENCY }, (_, i): Racer => {
          const k = w.pool.take('holds');
          return {
            op: 'candidate-hold',
            process: `key${k.index}`,
            send: (h, meta) =>
              recorded(h, meta, instance(i), 'POST', '/v1/holds', {
                key: k.key,
                body: { owner_email: w.owners['candidate-hold'], meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: slot.start, end: slot.end } },
              }),
          };
        });
        return { racers };
      },
      async (round, events, winner) => {
        const problems = events.filter((e) => e !== winner && e.status < 500 && e.status !== 0).flatMap((e) => conflictProblems(e, ['ARBITRATION_REJECTED']));
        if (!winner) return { problems };
        const id = parse(winner)?.hold_id;
        const slot = slotOf(round);
        const r = await paced(instance(round + 1), 'GET', `/v1/holds/${id}`, { key: w.customer.adminKey });
        if (r.status !== 200 || r.json.status !== 'active' || r.json.held_window.start !== slot.start || r.json.held_window.end !== slot.end) {
          problems.push(`round ${round}: hold ${id} read back as ${r.status} ${r.text.slice(0, 300)}`);
        }
        return { problems, winner: { ev: winner, claimId: id, claimKind: 'hold' } };
      },
    );
  });

  test(`window hold: ${CONCURRENCY} concurrent POST /v1/holds (window that fits one meeting), ${ROUNDS} rounds: exactly one 200 each`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    await race(
      'window-hold',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        // 45 minutes for a 30-minute meeting: one fits, a second never can.
        const window = { start: slot.start, end: iso(slot.startMs + 45 * 60_000) };
        const racers = Array.from({ length: CONCURRENCY }, (_, i): Racer => {
          const k = w.pool.take('holds');
          return {
            op: 'window-hold',
            process: `key${k.index}`,
            send: (h, meta) =>
              recorded(h, meta, instance(i), 'POST', '/v1/holds', {
                key: k.key,
                body: { owner_email: w.owners['window-hold'], meeting_class: 'internal', hold_scope: 'window', window, duration_minutes: SLOT_MINUTES },
              }),
          };
        });
        return { racers };
      },
      async (round, events, winner) => {
        const problems = events.filter((e) => e !== winner && e.status < 500 && e.status !== 0).flatMap((e) => conflictProblems(e, ['NO_SLOTS_AVAILABLE']));
        if (!winner) return { problems };
        const body = parse(winner);
        const id = body?.hold_id;
        const slot = slotOf(round);
        const held = body?.held_window;
        const heldMs = held ? Date.parse(held.end) - Date.parse(held.start) : 0;
        if (!held || Date.parse(held.start) < slot.startMs || Date.parse(held.end) > slot.startMs + 45 * 60_000 || heldMs < SLOT_MINUTES * 60_000) {
          problems.push(`round ${round}: held_window ${JSON.stringify(held)} is not a stretch of >= ${SLOT_MINUTES} min inside the window`);
        }
        const r = await paced(instance(round + 1), 'GET', `/v1/holds/${id}`, { key: w.customer.adminKey });
        if (r.status !== 200 || r.json.status !== 'active' || r.json.hold_scope !== 'window' || JSON.stringify(r.json.held_window) !== JSON.stringify(held)) {
          problems.push(`round ${round}: hold ${id} read back as ${r.status} ${r.text.slice(0, 300)}`);
        }
        return { problems, winner: { ev: winner, claimId: id, claimKind: 'hold' } };
      },
    );
  });

  test(`group hold: ${CONCURRENCY} concurrent POST /v1/holds with owner_emails (3-5 of 10 owners, all sharing one), ${ROUNDS} rounds: one winner, never a partial group`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    // Ten owners: the path's own (in every group, so exactly one group can win a round) and nine more.
    const others: string[] = [];
    for (let i = 0; i < 9; i++) others.push(await newOwner(w.customer, baseUrls[0], `race-group-${i}`));
    const ids = await Promise.all([w.owners['group-hold'], ...others].map((o) => ownerIdOf(w.sql, w.customer.customerId, o)));
    const group = () => {
      const pool = [...others];
      const out = [w.owners['group-hold']];
      const n = 3 + Math.floor(Math.random() * 3);
      while (out.length < n) out.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
      return out.sort(() => Math.random() - 0.5);
    };
    // A checker reading every group's members in repeatable read, the whole round: a group is seen whole or not at all.
    const checker = () => {
      let stopped = false;
      const seen: { group_id: string; n: number; statuses: string[] }[] = [];
      const loop = (async () => {
        while (!stopped) {
          const rows = await w.sql.begin('isolation level repeatable read', (tx) => tx<{ group_id: string; n: number; statuses: string[] }[]>`
            select group_id::text, count(*)::int as n, array_agg(distinct status) as statuses from claims
             where owner_id in ${tx(ids)} and group_id is not null and part_of_hold_id is null group by group_id`);
          seen.push(...rows);
        }
      })();
      return async () => {
        stopped = true;
        await loop;
        return seen;
      };
    };
    await race(
      'group-hold',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        const racers = Array.from({ length: CONCURRENCY }, (_, i): Racer => {
          const k = w.pool.take('holds');
          return {
            op: 'group-hold',
            process: `key${k.index}`,
            send: (h, meta) =>
              recorded(h, meta, instance(i), 'POST', '/v1/holds', {
                key: k.key,
                body: { owner_emails: group(), meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: slot.start, end: slot.end } },
              }),
          };
        });
        return { racers, context: { stop: checker() } };
      },
      async (round, events, winner, ctx) => {
        const seen = await (ctx!.stop as () => Promise<{ group_id: string; n: number; statuses: string[] }[]>)();
        const problems = events.filter((e) => e !== winner && e.status < 500 && e.status !== 0).flatMap((e) => conflictProblems(e, ['ARBITRATION_REJECTED']));
        for (const e of events.filter((x) => x.status === 409)) if (!Array.isArray(parse(e)?.owners) || !parse(e).owners.length) problems.push(`round ${round}: a group refusal without owners[]: ${e.text.slice(0, 300)}`);
        if (!winner) return { problems };
        const body = parse(winner);
        const id = body?.hold_id;
        const members: { owner_email: string; hold_id: string }[] = body?.members ?? [];
        const [{ n }] = await w.sql<{ n: number }[]>`select count(*)::int as n from claims where group_id = ${body?.group_id} and part_of_hold_id is null`;
        if (members.length < 3 || members.length > 5 || n !== members.length) problems.push(`round ${round}: group ${body?.group_id} has ${n} claims for ${members.length} members`);
        for (const s of seen) {
          if (s.n !== (s.group_id === body?.group_id ? members.length : s.n) || s.statuses.length !== 1) problems.push(`round ${round}: the checker saw group ${s.group_id} partial: ${s.n} member(s), statuses ${s.statuses.join('/')}`);
        }
        const overlaps = await overlappingClaims(w.sql, ids);
        for (const o of overlaps) problems.push(`round ${round}: owner ${o.owner_id} double-booked: ${o.a} and ${o.b}`);
        const r = await paced(instance(round + 1), 'GET', `/v1/holds/${members[members.length - 1]?.hold_id}`, { key: w.customer.adminKey });
        if (r.status !== 200 || r.json.group_id !== body?.group_id || r.json.members?.length !== members.length) problems.push(`round ${round}: a member read back as ${r.status} ${r.text.slice(0, 300)}`);
        // The path's own owner is in every group: its member is the round's one claim on the slot.
        const anchor = members.find((m) => m.owner_email.toLowerCase() === w.owners['group-hold'].toLowerCase());
        if (!anchor) problems.push(`round ${round}: the winning group ${body?.group_id} lacks the shared owner`);
        return { problems, winner: { ev: winner, claimId: anchor?.hold_id ?? id, claimKind: 'hold' } };
      },
    );
  });

  const PROPOSALS_PER_ROUND = 4;

  test(`owner approval: ${CONCURRENCY} concurrent tRPC proposals.approve over ${PROPOSALS_PER_ROUND} proposals for one slot, ${ROUNDS} rounds: exactly one booked`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    test.skip('skip' in w.approval, 'skip' in w.approval ? w.approval.skip : '');
    const cookie = (w.approval as { cookie: string }).cookie;
    await race(
      'proposal-approval',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        const proposals: string[] = [];
        for (let p = 0; p < PROPOSALS_PER_ROUND; p++) {
          const r = await paced(instance(p), 'POST', '/v1/booking-proposals', {
            key: w.pool.keys[p].key,
            body: { owner_email: w.owners['proposal-approval'], meeting_class: 'internal', duration_minutes: SLOT_MINUTES, window: { start: slot.start, end: slot.end }, attendees: [] },
          });
          expect(r.status, r.text).toBe(201);
          expect(r.json.candidates, r.text).toEqual([{ start: slot.start, end: slot.end }]);
          proposals.push(r.json.proposal_id);
        }
        const racers = Array.from({ length: CONCURRENCY }, (_, i): Racer => ({
          op: 'approve',
          process: `owner-session/p${i % PROPOSALS_PER_ROUND}`,
          send: (h, meta) => recorded(h, meta, instance(i), 'POST', '/api/trpc/proposals.approve', { cookie, body: { proposal_id: proposals[i % PROPOSALS_PER_ROUND] } }),
        }));
        return { racers, context: { proposals } };
      },
      async (round, events, winner, ctx) => {
        const proposals = ctx!.proposals as string[];
        const problems = events.filter((e) => e !== winner && e.status < 500 && e.status !== 0).flatMap((e) => conflictProblems(e, ['ARBITRATION_REJECTED', 'PROPOSAL_NOT_PENDING']));
        if (!winner) return { problems };
        const result = parse(winner)?.result?.data;
        const slot = slotOf(round);
        if (result?.status !== 'booked' || result.start !== slot.start || result.end !== slot.end) problems.push(`round ${round}: winner answered ${winner.text.slice(0, 300)}`);
        const won = proposals[Number(winner.process.split('/p')[1])];
        // Only approvals of the winning proposal may say "not pending"; the others lost to arbitration and stay pending.
        for (const e of events) {
          const p = proposals[Number(e.process.split('/p')[1])];
          if (e.code === 'PROPOSAL_NOT_PENDING' && p !== won) problems.push(`round ${round}: approval of ${p} says PROPOSAL_NOT_PENDING, but ${won} won`);
        }
        for (const p of proposals) {
          const r = await paced(instance(round), 'GET', `/v1/booking-proposals/${p}`, { key: w.pool.keys[0].key });
          const expected = p === won ? 'booked' : 'pending_review';
          if (r.status !== 200 || r.json.status !== expected || (p === won && r.json.booking_id !== result?.booking_id)) {
            problems.push(`round ${round}: proposal ${p} read back as ${r.status} ${r.text.slice(0, 300)}, expected ${expected}`);
          }
        }
        problems.push(...(await bookingProblems(round, result?.booking_id, slot)));
        return { problems, winner: { ev: winner, claimId: result?.booking_id, claimKind: 'booking' } };
      },
    );
  });

  test(`mixed: booking, candidate hold, window hold and approval race for one slot together (${CONCURRENCY} at once, ${ROUNDS} rounds): one winner`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    const mixedCookie = (w.approval as { mixedCookie?: string }).mixedCookie;
    const kinds = mixedCookie ? 4 : 3;
    await race(
      'mixed',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        const owner = w.owners.mixed;
        const proposals: string[] = [];
        if (mixedCookie) {
          for (let p = 0; p < 2; p++) {
            const r = await paced(instance(p), 'POST', '/v1/booking-proposals', {
              key: w.pool.keys[p].key,
              body: { owner_email: owner, meeting_class: 'internal', duration_minutes: SLOT_MINUTES, window: { start: slot.start, end: slot.end }, attendees: [] },
            });
            expect(r.status, r.text).toBe(201);
            proposals.push(r.json.proposal_id);
          }
        }
        const racers = Array.from({ length: CONCURRENCY }, (_, i): Racer => {
          const base = instance(i);
          switch (i % kinds) {
            case 0:
              return bookingRacer(owner, slot, i);
            case 1: {
              const k = w.pool.take('holds');
              return {
                op: 'candidate-hold',
                process: `key${k.index}`,
                send: (h, m) => recorded(h, m, base, 'POST', '/v1/holds', { key: k.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: slot.start, end: slot.end } } }),
              };
            }
            case 2: {
              const k = w.pool.take('holds');
              return {
                op: 'window-hold',
                process: `key${k.index}`,
                send: (h, m) =>
                  recorded(h, m, base, 'POST', '/v1/holds', { key: k.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', window: { start: slot.start, end: slot.end }, duration_minutes: SLOT_MINUTES } }),
              };
            }
            default:
              return {
                op: 'approve',
                process: `owner-session/p${i % 2}`,
                send: (h, m) => recorded(h, m, base, 'POST', '/api/trpc/proposals.approve', { cookie: mixedCookie!, body: { proposal_id: proposals[i % 2] } }),
              };
          }
        });
        return { racers };
      },
      async (round, events, winner) => {
        const problems = events
          .filter((e) => e !== winner && e.status < 500 && e.status !== 0)
          .flatMap((e) => conflictProblems(e, e.op === 'window-hold' ? ['NO_SLOTS_AVAILABLE'] : e.op === 'approve' ? ['ARBITRATION_REJECTED', 'PROPOSAL_NOT_PENDING'] : ['ARBITRATION_REJECTED']));
        if (!winner) return { problems };
        const body = parse(winner);
        const slot = slotOf(round);
        if (winner.op === 'booking' || winner.op === 'approve') {
          const id = winner.op === 'booking' ? body?.booking_id : body?.result?.data?.booking_id;
          problems.push(...(await bookingProblems(round, id, slot)));
          return { problems, winner: { ev: winner, claimId: id, claimKind: 'booking' } };
        }
        const id = body?.hold_id;
        const r = await paced(instance(round + 1), 'GET', `/v1/holds/${id}`, { key: w.customer.adminKey });
        if (r.status !== 200 || r.json.status !== 'active' || r.json.held_window.start !== slot.start || r.json.held_window.end !== slot.end) {
          problems.push(`round ${round}: hold ${id} read back as ${r.status} ${r.text.slice(0, 300)}`);
        }
        return { problems, winner: { ev: winner, claimId: id, claimKind: 'hold' } };
      },
    );
  });

  test(`reschedule: one booking moved into the slot while ${CONCURRENCY - 1} clients book it directly, ${ROUNDS} rounds: one holder, the moved booking at exactly one of its two times`, async ({}, testInfo) => {
    test.setTimeout(300_000);
    const w = world!;
    const owner = w.owners.reschedule;
    const ownerId = await ownerIdOf(w.sql, w.customer.customerId, owner);
    // The booking's old time: an hour after the round's slot (outside the slot and its margin).
    const oldOf = (round: number) => {
      const slot = slotOf(round);
      return { start: iso(slot.startMs + 60 * 60_000), end: iso(slot.startMs + 90 * 60_000) };
    };
    await race(
      'reschedule',
      testInfo,
      async (round) => {
        const slot = slotOf(round);
        const old = oldOf(round);
        // Booked and moved by the customer's admin agent (its own booking; 2 of its 120 bookings a minute per round).
        const b = await call(instance(round), 'POST', '/v1/bookings', { key: w.customer.adminKey, body: { owner_email: owner, meeting_class: 'internal', start: old.start, end: old.end, title: `moved in round ${round}` } });
        expect(b.status, b.text).toBe(201);
        const bookingId: string = b.json.booking_id;
        // Even rounds send the move first (so the move, too, wins some rounds), odd rounds at a random place.
        const mover = round % 2 === 0 ? 0 : Math.floor(Math.random() * CONCURRENCY);
        const racers = Array.from({ length: CONCURRENCY }, (_, i): Racer =>
          i === mover
            ? {
                op: 'reschedule',
                process: 'admin',
                send: (h, meta) => recorded(h, meta, instance(i), 'POST', `/v1/bookings/${bookingId}/reschedule`, { key: w.customer.adminKey, body: { start: slot.start, end: slot.end, reason: `race round ${round}` } }),
              }
            : bookingRacer(owner, slot, i),
        );
        return { racers, context: { bookingId } };
      },
      async (round, events, winner, ctx) => {
        const bookingId = ctx!.bookingId as string;
        const slot = slotOf(round);
        const old = oldOf(round);
        const problems = events.filter((e) => e !== winner && e.status < 500 && e.status !== 0).flatMap((e) => conflictProblems(e, ['ARBITRATION_REJECTED']));
        // The moved booking, in the database: one confirmed row at exactly its old or its new time, and
        // nothing else of the owner's on its old time (the old time is freed when, and only when, it moved).
        const moved = winner?.op === 'reschedule';
        const self = await w.sql<{ status: string; start_at: Date; end_at: Date }[]>`select status, start_at, end_at from claims where id = ${bookingId}`;
        const [{ n: onOld }] = await w.sql<{ n: number }[]>`
          select count(*)::int as n from claims where owner_id = ${ownerId} and status in ('active', 'confirmed') and start_at < ${old.end} and end_at > ${old.start}`;
        const at = (r: { start_at: Date; end_at: Date }, t: { start: string; end: string }) => r.start_at.toISOString() === t.start && r.end_at.toISOString() === t.end;
        if (self.length !== 1 || self[0].status !== 'confirmed') problems.push(`round ${round}: the moved booking ${bookingId} is ${self[0]?.status ?? 'missing'}`);
        else if (moved ? !at(self[0], slot) : !at(self[0], old)) {
          problems.push(`round ${round}: booking ${bookingId} is at [${self[0].start_at.toISOString()}, ${self[0].end_at.toISOString()}), expected its ${moved ? 'new' : 'old'} time (the move ${moved ? 'won' : 'lost'})`);
        }
        if (onOld !== (moved ? 0 : 1)) problems.push(`round ${round}: ${onOld} claim(s) on the old time after the move ${moved ? 'won' : 'lost'}`);
        const r = await paced(instance(round + 1), 'GET', `/v1/bookings/${bookingId}`, { key: w.customer.adminKey });
        const expected = moved ? slot : old;
        if (r.status !== 200 || r.json.status !== 'confirmed' || r.json.start !== expected.start || r.json.end !== expected.end) problems.push(`round ${round}: GET booking ${bookingId} read back as ${r.status} ${r.text.slice(0, 300)}`);
        if (!winner) return { problems };
        if (moved) {
          if (winner.status !== 200 || parse(winner)?.booking_id !== bookingId) problems.push(`round ${round}: the winning move answered ${winner.status} ${winner.text.slice(0, 300)}`);
          return { problems, winner: { ev: winner, claimId: bookingId, claimKind: 'booking' } };
        }
        const id = parse(winner)?.booking_id;
        if (winner.status !== 201) problems.push(`round ${round}: winner answered ${winner.status}, expected 201`);
        problems.push(...(await bookingProblems(round, id, slot)));
        return { problems, winner: { ev: winner, claimId: id, claimKind: 'booking' } };
      },
    );
  });

  test('database: no two active claims of any owner overlap (self-join over the whole claims table)', async () => {
    const w = world!;
    const t = nowMs();
    const rows = await overlappingClaims(w.sql);
    const [{ n }] = await w.sql<{ n: number }[]>`select count(*)::int as n from claims where status in ('active', 'confirmed')`;
    const [constraint] = await w.sql<{ def: string }[]>`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'claims_no_overlap'`;
    console.log(`[races] overlap check over ${n} active claims in the database: ${rows.length} overlapping pair(s), ${(nowMs() - t).toFixed(0)} ms; constraint: ${constraint?.def}`);
    expect(constraint?.def, 'the exclusion constraint claims_no_overlap exists').toContain('EXCLUDE');
    expect(rows).toEqual([]);
  });
});
