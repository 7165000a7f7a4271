import { beforeAll, describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import fc from 'fast-check';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { webhookDeliveries } from '@/db/schema';
import { newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { call, claimsOf, nextWeekday, onDate, setupOwner, tuesdayBeforeSpringForward } from './fixtures';

/**
 * Recurring series booked directly (docs/arbitration.md "Recurring series"): a claim of N
 * occurrences on the one claim path, all or nothing unless min_occurrences, series_id on every
 * occurrence, cancel with scope. Runs on PGlite, and on PostgreSQL with TEST_DATABASE_URL.
 */
allowLoopbackOutbound();
let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

const BERLIN = 'Europe/Berlin';

const book = (owner: string, body: Record<string, unknown>, key = admin.key) => call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: 'internal', ...body } });
const outbox = async (endpointId: string) =>
  (await (await getDb()).select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, endpointId))).map((r) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> });
const live = async (owner: string) => (await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed' || c.status === 'active');

describe('recurring series over POST /v1/bookings', () => {
  it('a weekly series across the spring-forward in Europe/Berlin: every occurrence at 10:00 local, one series_id', async () => {
    const owner = await setupOwner(admin, { timeZone: BERLIN });
    const day = tuesdayBeforeSpringForward();
    const agent = await newAgent(admin, ['create_bookings']);
    const hook = await call('POST', '/v1/webhooks', { key: agent.key, body: { url: 'http://127.0.0.1:9/series', events: ['booking.created'] } });
    expect(hook.status, hook.text).toBe(201);
    const endpoint = hook.body.id as string;
    const r = await book(owner, { start: day.at('10:00'), end: day.at('11:00'), recurrence: 'FREQ=WEEKLY;COUNT=4', title: 'Weekly sync' }, agent.key);
    expect(r.status, r.text).toBe(201);
    expect(r.body.series).toMatchObject({ occurrences_requested: 4, min_occurrences: 4, refused_occurrences: [] });
    // The answer is the first occurrence's booking, with the series beside it.
    expect(r.body).toMatchObject({ booking_id: r.body.series.bookings[0].booking_id, series_id: r.body.series.series_id, title: 'Weekly sync' });
    const seriesId = r.body.series.series_id as string;
    const bookings = r.body.series.bookings as { booking_id: string; start: string; start_local: string }[];
    expect(bookings.map((b) => b.start_local.slice(11, 16))).toEqual(['10:00', '10:00', '10:00', '10:00']);
    // CET (+1) before the change, CEST (+2) after: the UTC hour moves, the local one does not.
    expect(bookings.map((b) => b.start.slice(11, 13))).toEqual(['09', '08', '08', '08']);
    const read = await call('GET', `/v1/bookings/${bookings[2].booking_id}`, { key: agent.key });
    expect(read.body).toMatchObject({ series_id: seriesId, title: 'Weekly sync', status: 'confirmed' });
    expect((await live(owner)).map((c) => c.seriesId)).toEqual([seriesId, seriesId, seriesId, seriesId]);
    // booking.created for each occurrence carries the series_id (one transaction writes them all, in
    // the same millisecond: their ids, and so the outbox's order, are not the occurrences' order).
    const sent = (await outbox(endpoint)).filter((e) => e.type === 'booking.created' && e.data.series_id === seriesId);
    expect(sent.map((e) => e.data.booking_id).sort()).toEqual(bookings.map((b) => b.booking_id).sort());
  });

  it("BYDAY is the owner's weekday: Tuesday 08:00 in Auckland is a Monday in UTC", async () => {
    const owner = await setupOwner(admin, { timeZone: 'Pacific/Auckland' });
    const day = nextWeekday('tue', 'Pacific/Auckland');
    const r = await book(owner, { start: day.at('08:30'), end: day.at('09:30'), recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=2' });
    expect(r.status, r.text).toBe(409); // before working hours (09:00): refused as a single booking would be, not a 400
    expect(r.body.refused_occurrences.map((o: { index: number; code: string }) => [o.index, o.code])).toEqual([[0, 'ARBITRATION_REJECTED'], [1, 'ARBITRATION_REJECTED']]);
    const ok = await book(owner, { start: day.at('09:00'), end: day.at('10:00'), recurrence: 'FREQ=WEEKLY;BYDAY=TU;COUNT=2' });
    expect(ok.status, ok.text).toBe(201);
    expect(ok.body.series.bookings.map((b: { start_local: string }) => b.start_local.slice(11, 16))).toEqual(['09:00', '09:00']);
  });

  it('one occurrence taken: all or nothing refuses naming it, nothing committed; min_occurrences books the rest', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('wed', 'UTC');
    const third = Temporal.PlainDate.from(day.date).add({ days: 14 }).toString();
    const taken = await book(owner, { start: onDate(third, 'UTC').at('10:00'), end: onDate(third, 'UTC').at('11:00') });
    expect(taken.status, taken.text).toBe(201);
    const series = { start: day.at('10:00'), end: day.at('11:00'), recurrence: 'FREQ=WEEKLY;COUNT=5' };
    const refused = await book(owner, series);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error.code).toBe('ARBITRATION_REJECTED');
    expect(['COUNTER_PROPOSED', 'NO_CAPACITY']).toContain(refused.body.error.reason);
    expect(refused.body.error.message).toMatch(/nothing was booked/);
    expect(refused.body.refused_occurrences).toHaveLength(1);
    expect(refused.body.refused_occurrences[0]).toMatchObject({ index: 2, code: 'ARBITRATION_REJECTED', start: onDate(third, 'UTC').at('10:00') });
    expect(Array.isArray(refused.body.refused_occurrences[0].alternatives)).toBe(true);
    expect((await live(owner)).map((c) => c.id)).toEqual([taken.body.booking_id]);

    const some = await book(owner, { ...series, min_occurrences: 3 });
    expect(some.status, some.text).toBe(201);
    expect(some.body.series.bookings).toHaveLength(4);
    expect(some.body.series.refused_occurrences.map((o: { index: number }) => o.index)).toEqual([2]);
    expect(await live(owner)).toHaveLength(5);
  });

  it('refuses what a series does not take: pool_member without a pool, min_occurrences alone or above the count, a rule outside the subset', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('thu', 'UTC');
    const slot = { start: day.at('10:00'), end: day.at('11:00') };
    const stray = await book(owner, { ...slot, recurrence: 'FREQ=WEEKLY;COUNT=2', pool_member: 'same' });
    expect(stray.status, stray.text).toBe(400);
    expect(stray.body.error.message).toMatch(/pool/);
    for (const body of [{ ...slot, min_occurrences: 1 }, { ...slot, recurrence: 'FREQ=WEEKLY;COUNT=2', min_occurrences: 3 }, { ...slot, recurrence: 'FREQ=WEEKLY' }, { ...slot, recurrence: 'FREQ=HOURLY;COUNT=2' }]) {
      const r = await book(owner, body);
      expect(r.status, r.text).toBe(400);
    }
    expect(await live(owner)).toHaveLength(0);
  });

  it('the same Idempotency-Key answers the same series, booked once', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('fri', 'UTC');
    const body = { start: day.at('11:00'), end: day.at('11:30'), recurrence: 'FREQ=WEEKLY;INTERVAL=2;COUNT=3' };
    const send = () => call('POST', '/v1/bookings', { key: admin.key, idempotencyKey: 'series-once', body: { owner_email: owner, meeting_class: 'internal', ...body } });
    const first = await send();
    expect(first.status, first.text).toBe(201);
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body.series).toEqual(first.body.series);
    expect(await live(owner)).toHaveLength(3);
  });

  it('cancel scopes: one occurrence, this and following, the whole series', async () => {
    const owner = await setupOwner(admin);
    const day = nextWeekday('mon', 'UTC');
    const r = await book(owner, { start: day.at('14:00'), end: day.at('14:30'), recurrence: 'FREQ=WEEKLY;COUNT=5' });
    expect(r.status, r.text).toBe(201);
    const ids = (r.body.series.bookings as { booking_id: string }[]).map((b) => b.booking_id);
    const cancel = (id: string, body: Record<string, unknown>) => call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, body });
    const statusOf = async () => {
      const rows = await claimsOf(admin, owner);
      return ids.map((id) => rows.find((c) => c.id === id)!.status);
    };
    expect((await cancel(ids[1], {})).body).toMatchObject({ status: 'cancelled', series_id: r.body.series.series_id });
    expect(await statusOf()).toEqual(['confirmed', 'cancelled', 'confirmed', 'confirmed', 'confirmed']);
    // Another agent cancels this and the following ones: the series' agent hears of each, with series_id.
    const other = await newAgent(admin, ['create_bookings']);
    expect((await call('POST', `/v1/bookings/${ids[3]}/cancel`, { key: other.key, body: { scope: 'following', reason: 'ends early' } })).status).toBe(200);
    const told = await call('GET', '/v1/notifications', { key: admin.key });
    expect(told.status, told.text).toBe(200);
    const cancelledIds = (told.body.notifications as { kind: string; data: { booking_id: string; series_id?: string } }[]).filter((n) => n.kind === 'booking.cancelled' && n.data.series_id === r.body.series.series_id).map((n) => n.data.booking_id);
    expect(cancelledIds.sort()).toEqual([ids[3], ids[4]].sort());
    expect(await statusOf()).toEqual(['confirmed', 'cancelled', 'confirmed', 'cancelled', 'cancelled']);
    expect((await cancel(ids[4], { scope: 'series' })).status).toBe(200);
    expect(await statusOf()).toEqual(['cancelled', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
    expect((await cancel(ids[0], { scope: 'series' })).body.error.code).toBe('BOOKING_NOT_ACTIVE');
    const single = await book(owner, { start: day.at('16:00'), end: day.at('16:30') });
    expect((await cancel(single.body.booking_id, { scope: 'series' })).status).toBe(400);
  });

  it('property: an all-or-nothing series is committed whole or not at all', async () => {
    const owner = await setupOwner(admin);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 5 }), fc.uniqueArray(fc.integer({ min: 0, max: 4 }), { maxLength: 2 }), fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }), async (count, blocked, min) => {
        // Each run at an hour and weeks of its own, so runs never see each other.
        const hour = `${String(9 + (run % 7)).padStart(2, '0')}:00`;
        const first = nextWeekday('tue', 'UTC', 1 + 5 * Math.floor(run++ / 7));
        const at = (i: number) => onDate(Temporal.PlainDate.from(first.date).add({ weeks: i }).toString(), 'UTC');
        const slot = (i: number) => ({ start: at(i).at(hour), end: new Date(Date.parse(at(i).at(hour)) + 30 * 60_000).toISOString() });
        const taken = blocked.filter((i) => i < count);
        for (const i of taken) expect((await book(owner, slot(i))).status).toBe(201);
        const seriesRows = async () => (await live(owner)).filter((c) => c.seriesId);
        const before = (await seriesRows()).length;
        const minimum = min === undefined ? undefined : Math.min(min, count);
        const r = await book(owner, { ...slot(0), recurrence: `FREQ=WEEKLY;COUNT=${count}`, ...(minimum ? { min_occurrences: minimum } : {}) });
        const added = (await seriesRows()).length - before;
        const possible = count - taken.length;
        if (possible >= (minimum ?? count)) {
          expect(r.status, r.text).toBe(201);
          expect(added).toBe(possible);
          expect(r.body.series.bookings).toHaveLength(possible);
        } else {
          // Refused: nothing of it committed, and each refused occurrence named.
          expect(r.status, r.text).toBe(409);
          expect(added).toBe(0);
          expect(r.body.refused_occurrences.map((o: { index: number }) => o.index).sort()).toEqual([...taken].sort());
        }
      }),
      { numRuns: 12 },
    );
  });
});
