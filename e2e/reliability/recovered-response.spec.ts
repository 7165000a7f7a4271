import { expect, test } from '../test';
import { baseUrls, usesPostgres } from '../servers';
import { call, mintKeys, newCustomer, newOwner, openDb, suffix, type Customer, type PoolKey, type Sql } from './lib';
import { RECOVERY_CASES, rewindToCrashAfterCommit, stable } from './recovery';

/**
 * Regression test (was a bug: the recovery branches built the booking without
 * its warnings).
 *
 * After a crash between commit and storing the response, the retry that
 * takes the Idempotency-Key over finds the claim it already made
 * (claimMadeWithKey) and answers it, but for bookings it builds the answer
 * without `warnings`: createBooking and confirmHold call bookingView(made,
 * {...}) with no warnings, whereas createHold passes
 * notConfiguredWarnings(...). So for an owner without working hours the
 * first answer carries `"warnings":["WORKING_HOURS_NOT_CONFIGURED"]` (docs/api.md:
 * the warning appears in the success body) and the recovered one - the only
 * answer the client ever sees, since the first was lost - does not, and that
 * recovered body is what the key then replays for 24 h.
 *
 * Expected: the recovered answer equals the original field for field
 * (except `expires_in_seconds`, which depends on the moment).
 */
test.describe('a booking answer recovered after a crash keeps every field, warnings included', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the test rewrites the idempotency record in the shared database');

  let customer: Customer;
  let owner: string;
  let keys: PoolKey[];
  let sql: Sql;
  const day = 24 * 3_600_000;
  const base = Math.floor(Date.now() / day) * day + 17 * day;

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    customer = await newCustomer('E2E recovery bug', baseUrls[0]);
    owner = await newOwner(customer, baseUrls[0], 'recovery-bug'); // no working hours: the warning applies
    keys = await mintKeys(customer, baseUrls, 1, 2);
    sql = openDb();
  });
  test.afterAll(async () => {
    await sql?.end();
  });

  // Holds recover their warnings (recovery.spec.ts checks them field for field); bookings do not.
  for (const [i, c] of RECOVERY_CASES.filter((x) => x.kind === 'booking').entries()) {
    test(`${c.name}: the answer recovered after a crash equals the original answer (warnings included)`, async () => {
      const [key, helper] = keys;
      const { path, body } = await c.prepare(owner, base + i * 3 * 3_600_000, helper);
      const idemKey = `recovery-bug-${suffix()}`;
      const first = await call(baseUrls[0], 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
      expect(first.status, first.text).toBe(c.successStatus);
      expect(first.json.warnings, 'precondition: the original answer carries the warning').toEqual(['WORKING_HOURS_NOT_CONFIGURED']);
      await rewindToCrashAfterCommit(sql, key.agentId, idemKey);
      const retry = await call(baseUrls[1 % baseUrls.length], 'POST', path, { key: key.key, body, idempotencyKey: idemKey });
      expect(retry.status, retry.text).toBe(c.successStatus);
      expect(stable(retry, c.volatile), `original: ${first.text}\nrecovered: ${retry.text}`).toEqual(stable(first, c.volatile));
    });
  }
});
