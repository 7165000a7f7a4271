/**
 * The state a server leaves behind when it dies after committing a claim but
 * before storing the response of its Idempotency-Key (crash.spec.ts counts
 * these as "committed, answer lost"), made on purpose so that the retry path
 * can be tested deterministically: the claim is committed, the key's record
 * is back to `in_flight` without a response, and its 30 s lease has ended.
 * Used by recovery.spec.ts and bug-recovered-response-drops-warnings.spec.ts.
 */
import { expect } from '../test';
import { baseUrls } from '../servers';
import { call, iso, type PoolKey, type Reply, type Sql } from './lib';

export async function rewindToCrashAfterCommit(sql: Sql, agentId: string, idemKey: string): Promise<void> {
  const rows = await sql`
    update idempotency_records
       set state = 'in_flight', response_status = null, response_body = null, locked_until = now() - interval '1 second'
     where agent_id = ${agentId} and key = ${idemKey}
     returning id`;
  expect(rows.length, 'the key has a record to rewind').toBe(1);
}

export type RecoveryCase = {
  name: string;
  successStatus: number;
  idField: 'hold_id' | 'booking_id';
  kind: 'hold' | 'booking';
  /** Fields that legitimately differ between two answers at different moments. */
  volatile: string[];
  prepare: (owner: string, slotStart: number, helper: PoolKey) => Promise<{ path: string; body: Record<string, unknown> }>;
};

export const RECOVERY_CASES: RecoveryCase[] = [
  {
    name: 'direct booking',
    successStatus: 201,
    idField: 'booking_id',
    kind: 'booking',
    volatile: [],
    prepare: async (owner, s) => ({ path: '/v1/bookings', body: { owner_email: owner, meeting_class: 'internal', start: iso(s), end: iso(s + 30 * 60_000) } }),
  },
  {
    name: 'candidate hold',
    successStatus: 200,
    idField: 'hold_id',
    kind: 'hold',
    volatile: ['expires_in_seconds'],
    prepare: async (owner, s) => ({
      path: '/v1/holds',
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: iso(s), end: iso(s + 30 * 60_000) } },
    }),
  },
  {
    name: 'window hold',
    successStatus: 200,
    idField: 'hold_id',
    kind: 'hold',
    volatile: ['expires_in_seconds'],
    prepare: async (owner, s) => ({
      path: '/v1/holds',
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', window: { start: iso(s), end: iso(s + 60 * 60_000) }, duration_minutes: 30 },
    }),
  },
  {
    name: 'confirm',
    successStatus: 200,
    idField: 'booking_id',
    kind: 'booking',
    volatile: [],
    prepare: async (owner, s, helper) => {
      const slot = { start: iso(s), end: iso(s + 30 * 60_000) };
      const hold = await call(baseUrls[0], 'POST', '/v1/holds', { key: helper.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
      expect(hold.status, hold.text).toBe(200);
      return { path: `/v1/bookings/${hold.json.hold_id}/confirm`, body: slot };
    },
  },
];

/** The body without fields that depend on the moment of answering. */
export function stable(reply: Reply, volatile: string[]): Record<string, unknown> {
  const copy = { ...(reply.json as Record<string, unknown>) };
  for (const f of volatile) delete copy[f];
  return copy;
}
