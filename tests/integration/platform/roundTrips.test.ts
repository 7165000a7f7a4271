import net from 'node:net';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Db } from '@/db/client';
import { getDb } from '@/server/db';
import { preparedStatements } from '@/db/drivers/preparedStatements';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { bookingClaim } from '@/server/domain/claims/bookingService';
import { confirmClaim } from '@/server/domain/claims/holdConfirm';
import { holdClaim } from '@/server/domain/claims/holdService';
import { beginIdempotent, requestFingerprint } from '@/server/http/idempotency';
import { runAnsweredClaim } from '@/server/domain/claims';
import { driver, newCustomer } from '../../helpers/app';
import { nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * The round trips of a keyed booking on PostgreSQL (docs/architecture.md, "Data"): the
 * Idempotency-Key's insert, then the claim transaction in two (BEGIN, the locked target, the
 * key look-up, hold expiry and the claims around in one pipeline; the claim, its audit row,
 * the stored answer and COMMIT in another). With the API-key look-up, four. Counted on the
 * connection's socket: a round trip is a write after the server last answered.
 */
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

async function countingDb(url: string): Promise<{ db: Db; trips: () => number; reset: () => void }> {
  const target = new URL(url);
  let trips = 0;
  let answered = true;
  // `socket` (a connected socket of our own) is a postgres.js option its types do not list.
  const options = {
    max: 1,
    onnotice: () => {},
    socket: async () => {
      const socket = net.connect(Number(target.port || 5432), target.hostname);
      await once(socket, 'connect');
      const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
      socket.write = ((...args: unknown[]) => {
        if (answered) trips++;
        answered = false;
        return write(...args);
      }) as typeof socket.write;
      socket.on('data', () => {
        answered = true;
      });
      return socket;
    },
  };
  const sql = postgres(url, options as postgres.Options<Record<string, postgres.PostgresType>>);
  closers.push(() => sql.end({ timeout: 5 }));
  // As db/drivers/postgres.ts opens it.
  return { db: drizzle(preparedStatements(sql)) as unknown as Db, trips: () => trips, reset: () => (trips = 0) };
}

/** A fresh customer, owner and agent, and a counting connection; null on PGlite (no round trips; the counter needs TCP). */
async function counted() {
  const url = process.env.DATABASE_URL;
  if ((await driver()) !== 'postgres' || !url || !new URL(url).hostname) return null;
  const admin = await newCustomer();
  const ownerEmail = await setupOwner(admin);
  const actor = await authenticateApiKey(await getDb(), admin.key, new Date());
  return { admin, ownerEmail, actor, ...(await countingDb(url)) };
}

describe('round trips', () => {
  it('a keyed booking: one for the key, two for its transaction', async () => {
    const c = await counted();
    if (!c) return;
    const { admin, ownerEmail, actor, db, trips, reset } = c;
    const day = nextWeekday('wed', 'UTC');

    const book = async (hhmm: string, endHhmm: string) => {
      const now = new Date();
      const body = { owner_email: ownerEmail, meeting_class: 'external', start: day.at(hhmm), end: day.at(endHhmm) };
      reset();
      const begun = await beginIdempotent(db, { agentId: actor.agentId, method: 'POST', path: '/v1/bookings', key: `rt-${hhmm}-${now.getTime()}` }, requestFingerprint(body, ''), now);
      const keyTrips = trips();
      if (begun.kind !== 'proceed') throw new Error('replayed');
      reset();
      const value = await runAnsweredClaim(db, bookingClaim(actor, { ownerEmail, meetingClass: 'external', start: new Date(body.start), end: new Date(body.end) }, now, `rt-${hhmm}`), {
        answer: { recordId: begun.recordId, status: () => 201, redact: [], zone: null },
        // The REST wrapper's calendar gate, checked in the claim's own reads: no round trip of its own.
        gate: { owner: { customerId: admin.customerId, email: ownerEmail }, now },
      });
      expect(value.status).toBe('confirmed');
      return { keyTrips, claimTrips: trips() };
    };
    await book('09:00', '09:30'); // prepares every statement on the connection (a first use costs a round trip more)
    expect(await book('10:00', '10:30')).toEqual({ keyTrips: 1, claimTrips: 2 });
  });

  it('a confirm: two in all, those of its transaction (the locks and the claims around in one pipeline; the writes and COMMIT): no group look-up before it', async () => {
    const c = await counted();
    if (!c) return;
    const { ownerEmail, actor, db, trips, reset } = c;
    const day = nextWeekday('thu', 'UTC');

    const holdThenConfirm = async (hhmm: string, endHhmm: string) => {
      const now = new Date();
      const slot = { start: new Date(day.at(hhmm)), end: new Date(day.at(endHhmm)) };
      const hold = await runAnsweredClaim(db, holdClaim(actor, { ownerEmail, meetingClass: 'external', scope: 'candidate', candidate: slot }, now, `h-${hhmm}`), { answer: null });
      reset();
      // As the REST wrapper confirms (server/http/operations/scheduling.ts): one operation, whether the id names a single or a group hold.
      const value = await runAnsweredClaim(db, confirmClaim(actor, hold.hold_id, slot, now, `c-${hhmm}`), { answer: null });
      expect(value.status).toBe('confirmed');
      return trips();
    };
    await holdThenConfirm('09:00', '09:30'); // prepares every statement on the connection
    expect(await holdThenConfirm('10:00', '10:30')).toBe(2);
  });
});
