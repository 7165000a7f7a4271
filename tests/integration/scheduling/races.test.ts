import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@/server/domain/ids';
import { newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { call, claimsOf, directAgents, nextWeekday, setupOwner } from './fixtures';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

/**
 * Concurrency on real PostgreSQL (the integration-pg project). On PGlite
 * every test here is skipped: PGlite is one connection in one process, so
 * requests are serialised anyway and a race there proves nothing.
 *
 * The requests run in-process through the real route handlers on the
 * postgres.js pool (DB_POOL_MAX, default 10), so 100 requests really contend
 * for the owner row lock and the exclusion constraint. Per-key rate limits
 * (120/min on holds, bookings and confirm) are respected by spreading the
 * requests over several agents.
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL); // the same test the database client makes

let admin: TestCustomer;
const TZ = 'UTC';
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
});

function tally(responses: ApiResponse[]) {
  const byStatus: Record<number, number> = {};
  for (const r of responses) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  const fiveXx = responses.filter((r) => r.status >= 500);
  expect(fiveXx.map((r) => r.text), 'no 5xx').toEqual([]);
  for (const r of responses) {
    if (r.status >= 400) {
      expect(Array.isArray(r.body?.pending_notifications), r.text).toBe(true);
      expect(typeof r.body?.error?.code, r.text).toBe('string');
    }
  }
  return byStatus;
}

/** `n` requests, round-robin over the keys, all started at once. */
function burst(n: number, keys: string[], send: (key: string, i: number) => Promise<ApiResponse>) {
  return Promise.all(Array.from({ length: n }, (_, i) => send(keys[i % keys.length], i)));
}

describe('races on PostgreSQL', () => {
  it('100 concurrent direct bookings of one slot: exactly one 201, 99 x 409, no 5xx, one confirmed claim', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const agents = await directAgents(admin, 10, ['create_bookings']);
    const day = nextWeekday('mon', TZ);
    const slot = { start: day.at('10:00'), end: day.at('11:00') };
    const responses = await burst(100, agents.map((a) => a.key), (key) =>
      call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: 'internal', ...slot } }),
    );
    expect(tally(responses)).toEqual({ 201: 1, 409: 99 });
    for (const r of responses.filter((x) => x.status === 409)) {
      expect(r.body.error.code).toBe('ARBITRATION_REJECTED');
      expect(['COUNTER_PROPOSED', 'NO_CAPACITY']).toContain(r.body.error.reason);
    }
    const active = (await claimsOf(admin, owner)).filter((c) => c.status === 'confirmed' || c.status === 'active');
    expect(active).toHaveLength(1);
    expect(active[0]).toMatchObject({ kind: 'booking', startAt: new Date(slot.start), endAt: new Date(slot.end) });
  });

  it('100 agents confirm the same hold at once: one 200, 99 x 409 HOLD_ALREADY_PROMOTED, one booking', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('tue', TZ);
    const slot = { start: day.at('10:00'), end: day.at('10:30') };
    const hold = await call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
    expect(hold.status, hold.text).toBe(200);
    const agents = await directAgents(admin, 100, ['create_bookings']);
    const responses = await burst(100, agents.map((a) => a.key), (key) => call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key, body: slot }));
    expect(tally(responses)).toEqual({ 200: 1, 409: 99 });
    const winner = responses.find((r) => r.status === 200)!;
    for (const r of responses.filter((x) => x.status === 409)) {
      expect(r.body.error.code).toBe('HOLD_ALREADY_PROMOTED');
      expect(r.body.booking_id).toBe(winner.body.booking_id);
    }
    const rows = await claimsOf(admin, owner);
    expect(rows.filter((c) => c.kind === 'booking')).toHaveLength(1);
    expect(rows.find((c) => c.id === hold.body.hold_id)?.status).toBe('promoted');
  });

  it('100 concurrent candidate holds on one slot: exactly one 200, 99 x 409, one active hold', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const agents = await directAgents(admin, 10, ['create_holds']);
    const day = nextWeekday('wed', TZ);
    const slot = { start: day.at('14:00'), end: day.at('14:30') };
    const responses = await burst(100, agents.map((a) => a.key), (key) =>
      call('POST', '/v1/holds', { key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } }),
    );
    expect(tally(responses)).toEqual({ 200: 1, 409: 99 });
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('ARBITRATION_REJECTED');
    const active = (await claimsOf(admin, owner)).filter((c) => c.status === 'active' || c.status === 'confirmed');
    expect(active.map((c) => c.kind)).toEqual(['hold']);
  });

  it('20 concurrent POST /v1/bookings with one Idempotency-Key: one booking; each answer is the 201 (or its replay) or IDEMPOTENCY_IN_FLIGHT', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const [agent] = await directAgents(admin, 1, ['create_bookings']);
    const day = nextWeekday('thu', TZ);
    const body = { owner_email: owner, meeting_class: 'internal', start: day.at('09:00'), end: day.at('09:30') };
    const idempotencyKey = `race-${newId()}`;
    const responses = await burst(20, [agent.key], (key) => call('POST', '/v1/bookings', { key, body, idempotencyKey }));
    const byStatus = tally(responses);
    expect(Object.keys(byStatus).sort()).toEqual(expect.arrayContaining(['201']));
    for (const status of Object.keys(byStatus)) expect(['201', '409']).toContain(status);
    const created = responses.filter((r) => r.status === 201);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(new Set(created.map((r) => r.body.booking_id)).size).toBe(1);
    for (const r of responses.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('IDEMPOTENCY_IN_FLIGHT');
    const bookings = (await claimsOf(admin, owner)).filter((c) => c.kind === 'booking');
    expect(bookings).toHaveLength(1);
    expect(bookings[0].idempotencyKey).toBe(idempotencyKey);
    // Afterwards the key only replays.
    const later = await call('POST', '/v1/bookings', { key: agent.key, body, idempotencyKey });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body.booking_id).toBe(created[0].body.booking_id);
  });

  it('mixed priorities racing for one slot end with one active booking, of the highest class; every other winner was preempted', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const agents = await directAgents(admin, 10, ['create_bookings', 'preempt']);
    const day = nextWeekday('fri', TZ);
    const slot = { start: day.at('15:00'), end: day.at('16:00') };
    const classes = ['focus', 'internal', 'external', 'guarded'];
    const responses = await burst(60, agents.map((a) => a.key), (key, i) =>
      call('POST', '/v1/bookings', { key, body: { owner_email: owner, meeting_class: classes[i % classes.length], ...slot } }),
    );
    const byStatus = tally(responses);
    expect(byStatus[201]).toBeGreaterThanOrEqual(1);
    expect((byStatus[201] ?? 0) + (byStatus[409] ?? 0)).toBe(60);
    const rows = await claimsOf(admin, owner);
    const active = rows.filter((c) => c.status === 'confirmed');
    expect(active).toHaveLength(1);
    const winners = responses.filter((r) => r.status === 201).map((r) => r.body);
    expect(winners.filter((w) => w.booking_id === active[0].id).map((w) => w.meeting_class)).toEqual(['external']);
    for (const w of winners.filter((x) => x.booking_id !== active[0].id)) {
      expect(rows.find((c) => c.id === w.booking_id)?.status).toBe('preempted');
    }
  });
  it('64 agents race an all_free window hold while its holder confirms: no overlap, the confirm wins, only released time is taken', async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    const owner = await setupOwner(admin, { timeZone: TZ });
    const day = nextWeekday('wed', TZ);
    const taken = await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('14:00'), end: day.at('14:30') } });
    expect(taken.status, taken.text).toBe(201);
    const [holder] = await directAgents(admin, 1, ['create_holds', 'create_bookings']);
    const hold = await call('POST', '/v1/holds', {
      key: holder.key,
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', coverage: 'all_free', duration_minutes: 30, window: { start: day.at('13:00'), end: day.at('17:00') } },
    });
    expect(hold.status, hold.text).toBe(200);
    expect(hold.body.held_windows).toHaveLength(2);
    const agents = await directAgents(admin, 64, ['create_holds', 'create_bookings']);
    // Four kinds of contender, all of the hold's own class (no preemption): a booking of the very
    // slot the holder confirms, a booking of 13:00, a candidate hold of 16:00, a window hold.
    const attempts = agents.map((a, i) => {
      const kind = (['confirmedSlot', 'at13', 'candidate16', 'window'] as const)[i % 4];
      const body =
        kind === 'confirmedSlot'
          ? { owner_email: owner, meeting_class: 'internal', start: day.at('15:00'), end: day.at('15:30') }
          : kind === 'at13'
            ? { owner_email: owner, meeting_class: 'internal', start: day.at('13:00'), end: day.at('13:30') }
            : kind === 'candidate16'
              ? { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('16:00'), end: day.at('16:30') } }
              : { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('13:00'), end: day.at('17:00') } };
      return { kind, send: () => call('POST', kind === 'candidate16' || kind === 'window' ? '/v1/holds' : '/v1/bookings', { key: a.key, body }) };
    });
    const [confirm, ...responses] = await Promise.all([
      call('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { key: holder.key, body: { start: day.at('15:00'), end: day.at('15:30') } }),
      ...attempts.map((a) => a.send()),
    ]);
    expect(confirm.status, confirm.text).toBe(200);
    tally(responses);
    const won = (kind: string) => responses.filter((r, i) => attempts[i].kind === kind && r.status < 300);
    expect(won('confirmedSlot'), 'the confirmed slot is never taken by another').toHaveLength(0);
    expect(won('at13').length).toBeLessThanOrEqual(1);
    expect(won('candidate16').length).toBeLessThanOrEqual(1);
    for (const r of responses.filter((x) => x.status >= 400)) expect(['ARBITRATION_REJECTED', 'NO_SLOTS_AVAILABLE']).toContain(r.body.error.code);

    const rows = await claimsOf(admin, owner);
    const live = rows.filter((c) => c.status === 'confirmed' || c.status === 'active').sort((a, b) => a.startAt.getTime() - b.startAt.getTime());
    // no two active claims overlap
    for (let i = 1; i < live.length; i++) expect(live[i].startAt.getTime(), `${live[i - 1].id} / ${live[i].id}`).toBeGreaterThanOrEqual(live[i - 1].endAt.getTime());
    // exactly the expected winners: the first booking, the confirmed one, and one claim per winning contender
    const winners = responses.filter((r) => r.status < 300);
    expect(live).toHaveLength(2 + winners.length);
    const winnerIds = new Set(winners.map((r) => r.body.booking_id ?? r.body.hold_id));
    for (const c of live) expect([taken.body.booking_id, confirm.body.booking_id].includes(c.id) || winnerIds.has(c.id), c.id).toBe(true);
    // every winner took only time the hold released (its ranges minus the confirmed slot)
    const released = [
      [day.at('13:00'), day.at('14:00')],
      [day.at('14:30'), day.at('15:00')],
      [day.at('15:30'), day.at('17:00')],
    ].map(([a, b]) => [Date.parse(a), Date.parse(b)]);
    for (const c of live.filter((x) => winnerIds.has(x.id))) {
      expect(released.some(([a, b]) => c.startAt.getTime() >= a && c.endAt.getTime() <= b), `${c.startAt.toISOString()}-${c.endAt.toISOString()}`).toBe(true);
    }
    // the hold's own ranges: promoted and released, none left active
    expect(rows.filter((c) => c.id === hold.body.hold_id || c.partOfHoldId === hold.body.hold_id).map((c) => c.status).sort()).toEqual(['promoted', 'released']);
  });
});
