import { beforeAll, describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { eq, inArray } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { claims, poolAssignments } from '@/db/schema';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, nextWeekday, onDate, setupOwner } from './fixtures';

/**
 * Group and pool series (docs/arbitration.md "Recurring series"): every occurrence of a group
 * series a group booking of all the owners (all or nothing, or min_occurrences counting an
 * occurrence only when every owner accepts it), cancel with scope over every owner's members; a
 * pool series on one member (pool_member same) or per occurrence. PGlite, and PostgreSQL with
 * TEST_DATABASE_URL.
 */
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

const book = (body: Record<string, unknown>) => call('POST', '/v1/bookings', { key: admin.key, body: { meeting_class: 'internal', ...body } });
const live = async (owner: string) => (await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed');
const weekAfter = (date: Temporal.PlainDate | string, weeks: number) => onDate(Temporal.PlainDate.from(date).add({ days: 7 * weeks }).toString(), 'UTC');

describe('group series: POST /v1/bookings with owner_emails and recurrence', () => {
  it('one owner busy on one week: all or nothing refuses naming that owner; min_occurrences books the rest for both; every member carries series_id and its group_id', async () => {
    const a = await setupOwner(admin);
    const b = await setupOwner(admin);
    const day = nextWeekday('tue', 'UTC');
    const busy = weekAfter(day.date, 1);
    const taken = await book({ owner_email: b, start: busy.at('10:00'), end: busy.at('11:00') });
    expect(taken.status, taken.text).toBe(201);
    const series = { owner_emails: [a, b], start: day.at('10:00'), end: day.at('11:00'), recurrence: 'FREQ=WEEKLY;COUNT=3' };

    const refused = await book(series);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('ARBITRATION_REJECTED');
    expect(refused.body.error.message).toMatch(/nothing was booked/);
    expect(refused.body.refused_occurrences).toHaveLength(1);
    expect(refused.body.refused_occurrences[0]).toMatchObject({ index: 1, start: busy.at('10:00'), owners: [{ owner_email: b, code: 'ARBITRATION_REJECTED' }] });
    expect(await live(a)).toHaveLength(0);
    expect(await live(b)).toHaveLength(1);

    const some = await book({ ...series, min_occurrences: 2 });
    expect(some.status, some.text).toBe(201);
    const seriesId = some.body.series.series_id as string;
    expect(some.body.series).toMatchObject({ occurrences_requested: 3, min_occurrences: 2 });
    expect(some.body.series.bookings.map((o: { index: number }) => o.index)).toEqual([0, 2]);
    expect(some.body.series.refused_occurrences.map((o: { index: number; owners: { owner_email: string }[] }) => [o.index, o.owners.map((x) => x.owner_email)])).toEqual([[1, [b]]]);
    expect(some.body.members.map((m: { owner_email: string }) => m.owner_email)).toEqual([a, b]);
    const rows = (await (await getDb()).select().from(claims).where(eq(claims.seriesId, seriesId))).filter((c) => c.kind === 'booking');
    expect(rows).toHaveLength(4);
    // Two occurrences, each its own group of both owners.
    const groups = new Map<string, number>();
    for (const r of rows) groups.set(r.groupId!, (groups.get(r.groupId!) ?? 0) + 1);
    expect([...groups.values()]).toEqual([2, 2]);
    expect(await live(a)).toHaveLength(2);
    expect(await live(b)).toHaveLength(3);
  });

  it('cancel with scope on a group series: following cancels every owner\'s later members, occurrence cancels one group', async () => {
    const a = await setupOwner(admin);
    const b = await setupOwner(admin);
    const day = nextWeekday('wed', 'UTC');
    const made = await book({ owner_emails: [a, b], start: day.at('14:00'), end: day.at('15:00'), recurrence: 'FREQ=WEEKLY;COUNT=4' });
    expect(made.status, made.text).toBe(201);
    const ids = made.body.series.bookings.map((o: { booking_id: string }) => o.booking_id) as string[];
    expect(ids).toHaveLength(4);
    const cancel = (id: string, scope: string) => call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body: { scope } });
    expect((await cancel(ids[0], 'occurrence')).status).toBe(200);
    expect(await live(a)).toHaveLength(3);
    expect(await live(b)).toHaveLength(3);
    const following = await cancel(ids[2], 'following');
    expect(following.status, following.text).toBe(200);
    expect((await live(a)).map((c) => c.startAt.toISOString())).toEqual([weekAfter(day.date, 1).at('14:00')]);
    expect((await live(b)).map((c) => c.startAt.toISOString())).toEqual([weekAfter(day.date, 1).at('14:00')]);
    expect((await cancel(ids[1], 'series')).status).toBe(200);
    expect(await live(a)).toHaveLength(0);
    expect(await live(b)).toHaveLength(0);
  });
});

describe('pool series: POST /v1/bookings with pool and recurrence', () => {
  it('same puts every occurrence on one member who takes them all; per_occurrence falls back per occurrence', async () => {
    const a = await setupOwner(admin);
    const b = await setupOwner(admin);
    const pool = await call('POST', '/v1/pools', { key: admin.key, body: { name: `series-${Date.now()}`, members: [{ owner_email: a, weight: 1 }, { owner_email: b, weight: 1 }] } });
    expect(pool.status, pool.text).toBe(201);
    const day = nextWeekday('thu', 'UTC');
    // a (or b) is busy on the second week: whoever the pool tries first, one member cannot take every occurrence.
    const busy = weekAfter(day.date, 1);
    expect((await book({ owner_email: a, start: busy.at('10:00'), end: busy.at('11:00') })).status).toBe(201);
    const series = { pool: pool.body.pool_id, start: day.at('10:00'), end: day.at('11:00'), recurrence: 'FREQ=WEEKLY;COUNT=3' };

    const same = await book({ ...series, pool_member: 'same' });
    expect(same.status, same.text).toBe(201);
    expect(same.body.owner_email).toBe(b);
    const sameRows = await (await getDb()).select().from(claims).where(eq(claims.seriesId, same.body.series.series_id));
    expect(new Set(sameRows.map((r) => r.ownerId)).size).toBe(1);
    expect(sameRows).toHaveLength(3);
    const assigned = await (await getDb()).select().from(poolAssignments).where(inArray(poolAssignments.claimId, sameRows.map((r) => r.id)));
    expect(assigned).toHaveLength(3);

    // b now holds weeks 0-2 at 10:00 and a week 1: same finds no member for all three; per_occurrence books a on weeks 0 and 2 only with min_occurrences.
    const none = await book({ ...series, pool_member: 'same' });
    expect(none.status, none.text).toBe(409);
    const strict = await book({ ...series, pool_member: 'per_occurrence' });
    expect(strict.status, strict.text).toBe(409);
    expect(strict.body.refused_occurrences.map((o: { index: number }) => o.index)).toEqual([1]);
    const per = await book({ ...series, pool_member: 'per_occurrence', min_occurrences: 2 });
    expect(per.status, per.text).toBe(201);
    expect(per.body.series.bookings.map((o: { index: number; owner_email: string }) => [o.index, o.owner_email])).toEqual([[0, a], [2, a]]);

    // Per occurrence with room at both: each occurrence goes to the member the fairness rule picks, alternating as load grows.
    const later = weekAfter(day.date, 4);
    const spread = await book({ ...series, start: later.at('13:00'), end: later.at('14:00'), pool_member: 'per_occurrence' });
    expect(spread.status, spread.text).toBe(201);
    const owners = spread.body.series.bookings.map((o: { owner_email: string }) => o.owner_email) as string[];
    expect(owners).toHaveLength(3);
    expect(new Set(owners)).toEqual(new Set([a, b]));
  });
});
