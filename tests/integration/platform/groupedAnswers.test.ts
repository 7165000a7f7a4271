import { beforeAll, describe, expect, it } from 'vitest';
import { inArray } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { completeKeysAndDrainRows } from '@/db/hot/access';
import { insertKeyRecord } from '@/db/hot/idempotency';
import { agents, idempotencyRecords, notifications } from '@/db/schema';
import { newId } from '@/server/domain/ids';
import { drainNotificationsAnswering } from '@/server/domain/notificationService';
import { newCustomer, type TestCustomer } from '../../helpers/app';

/**
 * The error answers of keyed requests, stored together (docs/architecture.md "Deciding on
 * time"): one statement stores the answers of several refused keys and drains each of their
 * agents' pending notifications once (db/hot/access.ts completeKeysAndDrainRows); refusals
 * answered at the same moment share it (notificationService.ts drainNotificationsAnswering).
 */
let admin: TestCustomer;
let other: string;
const now = new Date(Math.floor(Date.now() / 1000) * 1000);

beforeAll(async () => {
  admin = await newCustomer();
  other = newId();
  await (await getDb()).insert(agents).values({ id: other, customerId: admin.customerId, name: 'grouped answers', permissions: ['create_bookings'], ownerScope: 'org:*' });
});

async function pendingFor(agentId: string, n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId());
  for (const [i, id] of ids.entries())
    await (await getDb()).insert(notifications).values({ id, customerId: admin.customerId, agentId, kind: 'hold.expired', data: { hold_id: id }, createdAt: new Date(now.getTime() - 60_000 + i) });
  return ids;
}

async function keyed(agentId: string, status: number) {
  const id = newId();
  await insertKeyRecord(await getDb(), { id, agentId, method: 'POST', path: '/v1/bookings', key: `grouped-${id}`, fingerprint: 'fp', lockedUntil: new Date(now.getTime() + 30_000), now });
  return { recordId: id, agentId, status, bodyText: `{"code":"C${status}","id":"${id}"}` };
}

async function expectAnswered(refusals: Awaited<ReturnType<typeof keyed>>[]) {
  const records = await (await getDb()).select().from(idempotencyRecords).where(inArray(idempotencyRecords.id, refusals.map((f) => f.recordId)));
  for (const f of refusals) expect(records.find((r) => r.id === f.recordId)).toMatchObject({ state: 'done', lockedUntil: null, responseStatus: f.status, responseBody: f.bodyText });
}

describe('keyed error answers stored together', () => {
  it('one statement: every answer stored, each agent drained once, rows as Drizzle reads them', async () => {
    const db = await getDb();
    const mine = await pendingFor(admin.agentId, 2);
    const theirs = await pendingFor(other, 1);
    const refusals = [await keyed(admin.agentId, 409), await keyed(other, 422), await keyed(admin.agentId, 409)];
    const drained = await completeKeysAndDrainRows(db, refusals, now, 50);
    expect(drained.map((r) => r.id).sort()).toEqual([...mine, ...theirs].sort());
    const read = await db.select().from(notifications).where(inArray(notifications.id, [...mine, ...theirs]));
    for (const d of drained) expect(d).toEqual(read.find((r) => r.id === d.id));
    expect(read.every((r) => r.deliveredAt?.getTime() === now.getTime())).toBe(true);
    await expectAnswered(refusals);
    expect(await completeKeysAndDrainRows(db, [await keyed(admin.agentId, 409), await keyed(other, 409)], now, 50), 'nothing left to deliver').toEqual([]);
  });

  it('refusals answered at once share statements; each agent gets its own items once, oldest first', async () => {
    const db = await getDb();
    const mine = await pendingFor(admin.agentId, 3);
    const theirs = await pendingFor(other, 2);
    const refusals = await Promise.all(Array.from({ length: 20 }, (_, i) => keyed(i % 2 ? other : admin.agentId, 409)));
    const answers = await Promise.all(refusals.map((f) => drainNotificationsAnswering(db, f.agentId, f)));
    const got = (agentId: string) => answers.filter((_, i) => refusals[i].agentId === agentId);
    expect(got(admin.agentId).filter((a) => a.length).map((a) => a.map((n) => n.id)), 'one refusal of this agent carries all its items, in order').toEqual([mine]);
    expect(got(other).filter((a) => a.length).map((a) => a.map((n) => n.id))).toEqual([theirs]);
    await expectAnswered(refusals);
  });
});
