import { beforeAll, describe, expect, it } from 'vitest';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, setupOwner } from './fixtures';

/** Options a person can choose from (docs/api.md "Search"): windows[], distinct and max_per_day. */
type Slot = { start: string; end: string; start_local: string; end_local: string; preempts: boolean };
let admin: TestCustomer;
let owner: string;
const TZ = 'America/New_York';
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ });
});
const search = (body: Record<string, unknown>) =>
  call('POST', '/v1/availability/search', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 60, max_results: 500, ...body } });

describe('distinct', () => {
  it('returns slots that never overlap each other, the earliest first', async () => {
    const mon = nextWeekday('mon', TZ);
    const plain = await search({ window: { start: mon.at('13:00'), end: mon.at('17:00') }, max_results: 3 });
    expect(plain.body.slots.map((s: Slot) => s.start)).toEqual([mon.at('13:00'), mon.at('13:15'), mon.at('13:30')]);
    const res = await search({ window: { start: mon.at('08:00'), end: mon.at('18:00') }, distinct: true });
    expect(res.status, res.text).toBe(200);
    const slots: Slot[] = res.body.slots;
    expect(slots.map((s) => s.start)).toEqual(['09:00', '10:00', '11:00', '12:00', '13:00', '14:00', '15:00', '16:00'].map((t) => mon.at(t)));
    for (let i = 1; i < slots.length; i++) expect(Date.parse(slots[i].start)).toBeGreaterThanOrEqual(Date.parse(slots[i - 1].end));
    const three = await search({ window: { start: mon.at('13:00'), end: mon.at('17:00') }, distinct: true, max_results: 3 });
    expect(three.body.slots.map((s: Slot) => s.start)).toEqual([mon.at('13:00'), mon.at('14:00'), mon.at('15:00')]);
  });
});

describe('windows[]', () => {
  it('equals the union of the single-window searches', async () => {
    const tue = nextWeekday('tue', TZ);
    const thu = nextWeekday('thu', TZ);
    const ws = [
      { start: thu.at('15:00'), end: thu.at('18:00') },
      { start: tue.at('09:30'), end: tue.at('11:00') },
      { start: tue.at('10:00'), end: tue.at('12:00') }, // overlaps the one before: no duplicates
    ];
    const singles: Slot[] = [];
    for (const w of ws) {
      const r = await search({ window: w });
      expect(r.status, r.text).toBe(200);
      singles.push(...r.body.slots);
    }
    const union = [...new Map(singles.map((s) => [`${s.start}|${s.end}`, s])).values()].sort((a, b) => Date.parse(a.start) - Date.parse(b.start));
    const res = await search({ windows: ws });
    expect(res.status, res.text).toBe(200);
    expect(res.body.slots).toEqual(union);
  });

  it('takes exactly one of window and windows, and at most 14 windows', async () => {
    const tue = nextWeekday('tue', TZ);
    const w = { start: tue.at('09:00'), end: tue.at('10:00') };
    expectEnvelope(await search({ window: w, windows: [w] }), 400, 'invalid_request');
    expectEnvelope(await search({}), 400, 'invalid_request');
    expectEnvelope(await search({ windows: Array.from({ length: 15 }, () => w) }), 400, 'invalid_request');
  });

  it('answers NO_SLOTS_AVAILABLE only when no window has a slot', async () => {
    const sat = nextWeekday('sat', TZ);
    const sun = nextWeekday('sun', TZ);
    const res = await search({ windows: [{ start: sat.at('10:00'), end: sat.at('12:00') }, { start: sun.at('10:00'), end: sun.at('12:00') }] });
    expectEnvelope(res, 409, 'NO_SLOTS_AVAILABLE');
    expect(res.body.reason_code).toBe('OFF_DAY');
  });
});

describe('max_per_day', () => {
  it('spreads options over the days searched instead of filling the earliest day', async () => {
    const days = [nextWeekday('tue', TZ), nextWeekday('wed', TZ), nextWeekday('thu', TZ)];
    const windows = days.map((d) => ({ start: d.at('09:00'), end: d.at('17:00') }));
    const localDate = (s: Slot) => s.start_local.slice(0, 10);
    const crowded = await search({ windows, distinct: true, max_results: 6 });
    expect(crowded.status, crowded.text).toBe(200);
    expect(new Set(crowded.body.slots.map(localDate)).size).toBe(1); // the docs' old recipe: all on one day

    const spread = await search({ windows, distinct: true, max_per_day: 2, max_results: 6 });
    expect(spread.status, spread.text).toBe(200);
    const slots: Slot[] = spread.body.slots;
    expect(slots).toHaveLength(6);
    const perDay = new Map<string, number>();
    for (const s of slots) perDay.set(localDate(s), (perDay.get(localDate(s)) ?? 0) + 1);
    expect([...perDay.values()]).toEqual([2, 2, 2]);
    // each day keeps its earliest distinct options; the whole answer is by start
    for (let i = 1; i < slots.length; i++) expect(Date.parse(slots[i].start)).toBeGreaterThan(Date.parse(slots[i - 1].start));
    const firsts = slots.filter((_, i) => i % 2 === 0).map((s) => s.start_local.slice(11, 16));
    expect(firsts).toEqual(['09:00', '09:00', '09:00']);
  });

  it('applies without distinct, and is refused outside 1-96', async () => {
    const tue = nextWeekday('tue', TZ);
    const wed = nextWeekday('wed', TZ);
    const res = await search({ windows: [{ start: tue.at('09:00'), end: tue.at('17:00') }, { start: wed.at('09:00'), end: wed.at('17:00') }], max_per_day: 1 });
    expect(res.status, res.text).toBe(200);
    expect(res.body.slots.map((s: Slot) => s.start_local.slice(11, 16))).toEqual(['09:00', '09:00']);
    expectEnvelope(await search({ window: { start: tue.at('09:00'), end: tue.at('17:00') }, max_per_day: 0 }), 400, 'invalid_request');
    expectEnvelope(await search({ window: { start: tue.at('09:00'), end: tue.at('17:00') }, max_per_day: 97 }), 400, 'invalid_request');
  });
});
