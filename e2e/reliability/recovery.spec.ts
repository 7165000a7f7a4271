import { expect, test } from '../test';
import { baseUrls, usesPostgres } from '../servers';
import { call, mintKeys, newCustomer, newOwner, openDb, suffix, type Customer, type PoolKey, type Sql } from './lib';
import { RECOVERY_CASES, rewindToCrashAfterCommit, stable } from './recovery';

/**
 * The crash-recovery path of Idempotency-Key, deterministically: for each
 * path that claims time, a request succeeds, then its key is put back into
 * the state a server dying right after the commit leaves (recovery.ts). A
 * retry with the same key and body inside the lease answers 409
 * IDEMPOTENCY_IN_FLIGHT; after the lease it takes the key over and must find
 * the claim it already made (claimMadeWithKey) instead of claiming again or
 * colliding with itself: same id, still one claim, the key finished, and
 * later replays byte-identical to what the retry answered.
 * crash.spec.ts shows the same under real SIGKILLs, where hitting this exact
 * state is a matter of luck.
 */
test.describe('crash recovery of an Idempotency-Key whose claim was committed but whose answer was lost', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the test rewrites the idempotency record in the shared database');

  let customer: Customer;
  let owner: string;
  let keys: PoolKey[];
  let sql: Sql;
  const day = 24 * 3_600_000;
  const base = Math.floor(Date.now() / day) * day + 15 * day;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    customer = await newCustomer('E2E recovery', baseUrls[0]);
    owner = await newOwner(customer, baseUrls[0], 'recovery');
    keys = await mintKeys(customer, baseUrls, 1, 2);
    sql = openDb();
  });
  test.afterAll(async () => {
    await sql?.end();
  });

  for (const [i, c] of RECOVERY_CASES.entries()) {
    test(`${c.name}: the retry after the lease finds the committed claim (same id, one claim), and replays agree with it`, async () => {
      const [key, helper] = keys;
      const { path, body } = await c.prepare(owner, base + i * 3 * 3_600_000, helper);
      const idemKey = `recovery-${suffix()}`;
      const first = await call(baseUrls[0], 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
      expect(first.status, first.text).toBe(c.successStatus);
      const id = first.json[c.idField];

      await rewindToCrashAfterCommit(sql, key.agentId, idemKey);
      // Inside the lease of the (dead) request: in flight.
      await sql`update idempotency_records set locked_until = now() + interval '30 seconds' where agent_id = ${key.agentId} and key = ${idemKey}`;
      const early = await call(baseUrls[1 % baseUrls.length], 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
      expect(`${early.status} ${early.json?.error?.code}`, early.text).toBe('409 IDEMPOTENCY_IN_FLIGHT');

      // The lease is over: the retry takes the key over and finds its claim.
      await sql`update idempotency_records set locked_until = now() - interval '1 second' where agent_id = ${key.agentId} and key = ${idemKey}`;
      const retry = await call(baseUrls[1 % baseUrls.length], 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
      expect(retry.status, retry.text).toBe(c.successStatus);
      expect(retry.headers.get('idempotent-replayed'), 'the retry ran (it was not a replay)').toBeNull();
      expect(retry.json[c.idField], retry.text).toBe(id);
      expect(retry.json.status).toBe(first.json.status);
      expect(retry.json.held_window ?? null).toEqual(first.json.held_window ?? null);
      expect([retry.json.start ?? null, retry.json.end ?? null]).toEqual([first.json.start ?? null, first.json.end ?? null]);

      const claims = await sql<{ id: string; kind: string }[]>`select id, kind from claims where agent_id = ${key.agentId} and idempotency_key = ${idemKey}`;
      expect(claims.map((x) => `${x.kind} ${x.id}`), 'still exactly one claim for the key').toEqual([`${c.kind} ${id}`]);
      const audits = await sql<{ n: number }[]>`select count(*)::int as n from audit_log where agent_id = ${key.agentId} and idempotency_key = ${idemKey}`;
      expect(audits[0].n, 'no second decision was made').toBe(1);
      const [record] = await sql<{ state: string; response_body: string }[]>`select state, response_body from idempotency_records where agent_id = ${key.agentId} and key = ${idemKey}`;
      expect(record).toEqual({ state: 'done', response_body: retry.text });

      const replay = await call(baseUrls[0], 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
      expect(replay.status).toBe(c.successStatus);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(retry.text);
      // Holds answer field for field what they first answered (bookings drop `warnings`:
      // that known bug is kept failing in bug-recovered-response-drops-warnings.spec.ts).
      if (c.kind === 'hold') expect(stable(retry, c.volatile), `original: ${first.text}\nrecovered: ${retry.text}`).toEqual(stable(first, c.volatile));
    });
  }
});
