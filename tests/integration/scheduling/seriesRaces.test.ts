import { beforeAll, describe, expect, it } from 'vitest';
import { Temporal } from 'temporal-polyfill';
import { newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, directAgents, nextWeekday, onDate, setupOwner } from './fixtures';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

/**
 * Recurring series racing on real PostgreSQL (the integration-pg project; skipped on PGlite,
 * where requests are serialised anyway): overlapping weekly series for one owner, all through
 * the claim runner (docs/arbitration.md "Recurring series"). No two claims overlap, and no
 * all-or-nothing series is left partial.
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);

let admin: TestCustomer;
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
});

/** The scale ("Proof": 256 racers), spread over enough agents that no key meets its rate limit. */
const RACERS = 256;
const AGENTS = 32;

describe('recurring series races on PostgreSQL', () => {
  it(`${RACERS} concurrent overlapping weekly series for one owner: one winner per occurrence set, no overlap, no partial all-or-nothing series, no 5xx`, async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin);
    const agents = await directAgents(admin, AGENTS, ['create_bookings']);
    const first = nextWeekday('wed', 'UTC');
    const week = (w: number) => onDate(Temporal.PlainDate.from(first.date).add({ weeks: w }).toString(), 'UTC');
    // Series i: three weekly occurrences from week i % 4, at 10:00 or 10:30 (half an hour apart, so they overlap); even ones all or nothing, odd ones min 2.
    const requests = Array.from({ length: RACERS }, (_, i) => {
      const at = week(i % 4).at(i % 3 === 0 ? '10:30' : '10:00');
      const body = { owner_email: owner, meeting_class: 'internal', start: at, end: new Date(Date.parse(at) + 3_600_000).toISOString(), recurrence: 'FREQ=WEEKLY;COUNT=3', ...(i % 2 ? { min_occurrences: 2 } : {}) };
      return { allOrNothing: i % 2 === 0, set: at, send: () => call('POST', '/v1/bookings', { key: agents[i % agents.length].key, body }) };
    });
    const responses: ApiResponse[] = await Promise.all(requests.map((r) => r.send()));
    expect(responses.filter((r) => r.status >= 500).map((r) => r.text), 'no 5xx').toEqual([]);
    for (const r of responses) expect([201, 409], r.text).toContain(r.status);
    expect(responses.some((r) => r.status === 201)).toBe(true);

    const live = (await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed' || c.status === 'active').sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
    for (let i = 1; i < live.length; i++) expect(live[i].startAt.getTime(), 'no two claims overlap').toBeGreaterThanOrEqual(live[i - 1].endAt.getTime());
    let booked = 0;
    for (const [i, r] of responses.entries()) {
      if (r.status !== 201) {
        expect(r.body.error.code).toBe('ARBITRATION_REJECTED');
        continue;
      }
      const rows = live.filter((c) => c.seriesId === r.body.series.series_id);
      expect(rows.map((c) => c.id).sort()).toEqual(r.body.series.bookings.map((b: { booking_id: string }) => b.booking_id).sort());
      expect(rows.length).toBeGreaterThanOrEqual(requests[i].allOrNothing ? 3 : 2);
      booked += rows.length;
    }
    // Every live claim belongs to a series answered 201: a refused series left nothing behind.
    expect(live).toHaveLength(booked);
    // One winner per occurrence set: of the racers asking for the same occurrences (same first start, same rule), at most one won.
    const winners = new Map<string, number>();
    for (const [i, r] of responses.entries()) if (r.status === 201) winners.set(requests[i].set, (winners.get(requests[i].set) ?? 0) + 1);
    for (const [set, n] of winners) expect(n, `winners of ${set}`).toBe(1);
  }, 300_000);
});
