import { expect, test } from '../test';
import { baseUrls, usesPostgres } from '../servers';
import {
  call,
  iso,
  mintKeys,
  newCustomer,
  newOwner,
  nowMs,
  openDb,
  parse,
  recorded,
  sleep,
  suffix,
  tallyStatuses,
  type Customer,
  type HistoryEvent,
  type PoolKey,
  type Sql,
} from './lib';

/**
 * Idempotency under concurrency (issue "Proof of reliability, security and
 * speed", item 2). For each mutating path that claims time, 32 requests with
 * one API key and one Idempotency-Key are sent at the same moment, split
 * over the instances:
 *
 *  - exactly one of them runs (one claim, one audit row for the key); the
 *    others answer 409 IDEMPOTENCY_IN_FLIGHT while it runs, or replay it;
 *  - once settled, every success response is byte-identical to the first
 *    (raw text), replays say `Idempotent-Replayed: true`, and the stored
 *    record holds exactly those bytes;
 *  - the same key with another body answers 422 IDEMPOTENCY_CONFLICT (also
 *    when those arrive concurrently) and changes nothing.
 */
const N = 32;

type Ctx = { customer: Customer; owner: string; ownerId: string; keys: PoolKey[]; sql: Sql; base: number };
let ctx: Ctx | undefined;
let slotNo = 0;

function nextSlot(): { start: string; end: string } {
  const start = ctx!.base + slotNo++ * 2 * 3_600_000;
  return { start: iso(start), end: iso(start + 30 * 60_000) };
}

type Case = {
  name: string;
  path: (setup: Record<string, string>) => string;
  body: (slot: { start: string; end: string }) => Record<string, unknown>;
  successStatus: number;
  /** The claim the request makes, for counting effects: kind and the id field of the response. */
  effect: { kind: 'hold' | 'booking'; idField: 'hold_id' | 'booking_id' };
  /** Work before the burst (e.g. the hold to confirm); returns values for `path`. */
  setup?: (slot: { start: string; end: string }, key: PoolKey) => Promise<Record<string, string>>;
};

const CASES: Case[] = [
  {
    name: 'direct booking (POST /v1/bookings)',
    path: () => '/v1/bookings',
    body: (slot) => ({ owner_email: ctx!.owner, meeting_class: 'internal', ...slot, title: 'idempotent booking' }),
    successStatus: 201,
    effect: { kind: 'booking', idField: 'booking_id' },
  },
  {
    name: 'candidate hold (POST /v1/holds)',
    path: () => '/v1/holds',
    body: (slot) => ({ owner_email: ctx!.owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot }),
    successStatus: 200,
    effect: { kind: 'hold', idField: 'hold_id' },
  },
  {
    name: 'window hold (POST /v1/holds)',
    path: () => '/v1/holds',
    body: (slot) => ({ owner_email: ctx!.owner, meeting_class: 'internal', hold_scope: 'window', window: { start: slot.start, end: iso(Date.parse(slot.start) + 90 * 60_000) }, duration_minutes: 30 }),
    successStatus: 200,
    effect: { kind: 'hold', idField: 'hold_id' },
  },
  {
    name: 'confirm (POST /v1/bookings/{hold_id}/confirm)',
    path: (s) => `/v1/bookings/${s.holdId}/confirm`,
    body: (slot) => ({ ...slot, title: 'idempotent confirm' }),
    successStatus: 200,
    effect: { kind: 'booking', idField: 'booking_id' },
    setup: async (slot, key) => {
      const r = await call(baseUrls[0], 'POST', '/v1/holds', { key: key.key, body: { owner_email: ctx!.owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
      expect(r.status, r.text).toBe(200);
      return { holdId: r.json.hold_id };
    },
  },
];

test.describe('idempotency under concurrency', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: keys are minted with the CLI on the shared database, and the effects are counted in it');

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    const customer = await newCustomer('E2E idempotency', baseUrls[0]);
    const owner = await newOwner(customer, baseUrls[0], 'idem');
    const keys = await mintKeys(customer, baseUrls, 1, CASES.length + 2);
    const sql = openDb();
    const [{ id: ownerId }] = await sql<{ id: string }[]>`select id from owners where customer_id = ${customer.customerId} and email = ${owner}`;
    const day = 24 * 3_600_000;
    ctx = { customer, owner, ownerId, keys, sql, base: Math.floor(Date.now() / day) * day + 11 * day };
  });

  test.afterAll(async () => {
    await ctx?.sql.end();
  });

  for (const [index, c] of CASES.entries()) {
    test(`${c.name}: ${N} simultaneous requests with one Idempotency-Key make one effect, every success is byte-identical, another body gets 422 IDEMPOTENCY_CONFLICT`, async () => {
      test.setTimeout(60_000);
      const w = ctx!;
      const key = w.keys[index];
      const slot = nextSlot();
      const setup = c.setup ? await c.setup(slot, w.keys[w.keys.length - 1]) : {};
      const path = c.path(setup);
      const body = c.body(slot);
      const idemKey = `idem-${suffix()}-${index}`;
      const history: HistoryEvent[] = [];

      const burst = await Promise.all(
        Array.from({ length: N }, (_, i) => recorded(history, { op: c.name, round: 0, process: `req${i}` }, baseUrls[i % baseUrls.length], 'POST', path, { key: key.key, body, idempotencyKey: idemKey })),
      );
      const unexpected = burst.filter((e) => !(e.status === c.successStatus || (e.status === 409 && e.code === 'IDEMPOTENCY_IN_FLIGHT')));
      expect(unexpected.map((e) => `${e.status} ${e.text.slice(0, 300)}`), 'only successes and IDEMPOTENCY_IN_FLIGHT while the first runs').toEqual([]);
      const originals = burst.filter((e) => e.status === c.successStatus && !e.replayed);
      expect(originals.length, `exactly one request ran; answers ${JSON.stringify(tallyStatuses(burst))}`).toBe(1);
      const first = originals[0];

      // The ones told "in flight" retry with the same key and body until it settles: they must get the replay.
      const settled: HistoryEvent[] = [];
      for (const e of burst) {
        if (e.status !== 409) continue;
        let r = e;
        const deadline = Date.now() + 20_000;
        while (r.status === 409 && r.code === 'IDEMPOTENCY_IN_FLIGHT' && Date.now() < deadline) {
          await sleep(50);
          r = await recorded(history, { op: c.name, round: 1, process: e.process }, e.instance, 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
        }
        settled.push(r);
      }
      const successes = [...burst, ...settled].filter((e) => e.status === c.successStatus);
      expect(successes.length, `every request ends in the same success; answers after retrying ${JSON.stringify(tallyStatuses(settled))}`).toBe(N);
      const differing = successes.filter((e) => e.text !== first.text);
      expect(differing.map((e) => `${e.instance}: ${e.text}`), `byte-identical to the first: ${first.text}`).toEqual([]);
      expect(successes.filter((e) => e !== first && !e.replayed).length, 'replays carry Idempotent-Replayed: true').toBe(0);

      // One effect: one claim made with the key, one audit row for it, and the stored response is the first one's bytes.
      const id = parse(first)[c.effect.idField];
      const claims = await w.sql<{ id: string; kind: string }[]>`select id, kind from claims where agent_id = ${key.agentId} and idempotency_key = ${idemKey}`;
      expect(claims.map((x) => `${x.kind} ${x.id}`)).toEqual([`${c.effect.kind} ${id}`]);
      const audits = await w.sql<{ n: number }[]>`select count(*)::int as n from audit_log where agent_id = ${key.agentId} and idempotency_key = ${idemKey}`;
      expect(audits[0].n, 'one audited decision for the key').toBe(1);
      const [record] = await w.sql<{ state: string; response_status: number; response_body: string }[]>`
        select state, response_status, response_body from idempotency_records where agent_id = ${key.agentId} and key = ${idemKey}`;
      expect(record).toEqual({ state: 'done', response_status: c.successStatus, response_body: first.text });

      // The same key with another body (another slot), several at once: 422 IDEMPOTENCY_CONFLICT, nothing changes.
      const other = c.body(nextSlot());
      const conflicts = await Promise.all(
        Array.from({ length: 8 }, (_, i) => recorded(history, { op: c.name, round: 2, process: `conflict${i}` }, baseUrls[i % baseUrls.length], 'POST', path, { key: key.key, body: other, idempotencyKey: idemKey })),
      );
      expect(conflicts.map((e) => `${e.status} ${e.code}`)).toEqual(conflicts.map(() => '422 IDEMPOTENCY_CONFLICT'));
      for (const e of conflicts) expect(Array.isArray(parse(e)?.pending_notifications), e.text).toBe(true);
      const after = await w.sql<{ n: number }[]>`select count(*)::int as n from claims where agent_id = ${key.agentId} and idempotency_key = ${idemKey}`;
      expect(after[0].n).toBe(1);

      // And the original body still replays the same bytes.
      const again = await call(baseUrls[1 % baseUrls.length], 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
      expect(again.status).toBe(c.successStatus);
      expect(again.text).toBe(first.text);
      console.log(
        `[idempotency] ${c.name}: ${N} at once -> ${JSON.stringify(tallyStatuses(burst))} (${burst.filter((e) => e.replayed).length} replays), ` +
          `${settled.length} in-flight retried -> all ${c.successStatus}; byte-identical; 8 other-body -> 422; ${(Math.max(...history.map((e) => e.complete)) - Math.min(...history.map((e) => e.invoke))).toFixed(0)} ms`,
      );
    });
  }

  test(`an idempotent rejection (409 ARBITRATION_REJECTED) is also run once and replayed byte-identical to ${N} simultaneous requests`, async () => {
    const w = ctx!;
    const key = w.keys[CASES.length];
    const slot = nextSlot();
    // Someone else takes the slot first.
    const taken = await call(baseUrls[0], 'POST', '/v1/bookings', { key: w.keys[CASES.length + 1].key, body: { owner_email: w.owner, meeting_class: 'internal', ...slot } });
    expect(taken.status, taken.text).toBe(201);
    const idemKey = `idem-reject-${suffix()}`;
    const body = { owner_email: w.owner, meeting_class: 'internal', ...slot };
    const history: HistoryEvent[] = [];
    const t = nowMs();
    const burst = await Promise.all(
      Array.from({ length: N }, (_, i) => recorded(history, { op: 'rejected booking', round: 0, process: `req${i}` }, baseUrls[i % baseUrls.length], 'POST', '/v1/bookings', { key: key.key, body, idempotencyKey: idemKey })),
    );
    const settled = [];
    for (const e of burst) {
      let r = e;
      while (r.status === 409 && r.code === 'IDEMPOTENCY_IN_FLIGHT') {
        await sleep(50);
        r = await recorded(history, { op: 'rejected booking', round: 1, process: e.process }, e.instance, 'POST', '/v1/bookings', { key: key.key, body, idempotencyKey: idemKey });
      }
      settled.push(r);
    }
    expect(settled.map((e) => `${e.status} ${e.code}`)).toEqual(settled.map(() => '409 ARBITRATION_REJECTED'));
    const originals = settled.filter((e) => !e.replayed);
    expect(originals.length, 'exactly one request ran').toBe(1);
    // The agent's notification queue is empty throughout, so the appended pending_notifications is [] every time.
    expect(settled.filter((e) => e.text !== originals[0].text).map((e) => e.text)).toEqual([]);
    const audits = await w.sql<{ n: number }[]>`select count(*)::int as n from audit_log where agent_id = ${key.agentId} and idempotency_key = ${idemKey}`;
    expect(audits[0].n, 'one audited decision for the key').toBe(1);
    console.log(`[idempotency] rejected booking: ${N} at once -> ${JSON.stringify(tallyStatuses(burst))}; settled all 409 ARBITRATION_REJECTED byte-identical; ${(nowMs() - t).toFixed(0)} ms`);
  });
});
