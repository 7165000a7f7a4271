import { beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { auditLog } from '@/db/schema';
import { expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';
import { call, nextWeekday, patchClaim, setupOwner } from './fixtures';

/**
 * POST /v1/holds/{id}/extend (docs/api.md "Reschedule", "Extend a hold"): the time to live
 * starts again from now, within 10-3600 s; no new decision; refused once the hold expired
 * (410) or was promoted, released or preempted (409).
 */
let admin: TestCustomer;
let owner: string;
const TZ = 'UTC';
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: TZ });
});

const hold = (start: string, end: string, body: Record<string, unknown> = {}) =>
  call('POST', '/v1/holds', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start, end }, ttl_seconds: 60, ...body } });
const extend = (id: string, ttl: number) => call('POST', `/v1/holds/${id}/extend`, { key: admin.key, body: { ttl_seconds: ttl } });

describe('POST /v1/holds/{id}/extend', () => {
  it('counts the new time to live from now, keeps the held time, and writes one hold.extend audit row', async () => {
    const day = nextWeekday('mon', TZ);
    const h = await hold(day.at('09:00'), day.at('09:30'));
    expect(h.status, h.text).toBe(200);
    const before = Date.now();
    const res = await extend(h.body.hold_id, 1800);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ hold_id: h.body.hold_id, status: 'active', held_window: h.body.held_window });
    expect(Date.parse(res.body.expires_at)).toBeGreaterThanOrEqual(before + 1800_000 - 1000);
    expect(res.body.expires_in_seconds).toBeGreaterThan(1700);
    const db = await getDb();
    const rows = await db.select().from(auditLog).where(and(eq(auditLog.holdId, h.body.hold_id), eq(auditLog.action, 'hold.extend')));
    expect(rows).toHaveLength(1);
    expect(rows[0].details).toMatchObject({ ttl_seconds: 1800 });
  });

  it('bounds ttl_seconds to 10-3600', async () => {
    const day = nextWeekday('tue', TZ);
    const h = await hold(day.at('09:00'), day.at('09:30'));
    for (const ttl of [9, 3601]) expectEnvelope(await extend(h.body.hold_id, ttl), 400, 'invalid_request');
    expect((await extend(h.body.hold_id, 10)).status).toBe(200);
    expect((await extend(h.body.hold_id, 3600)).status).toBe(200);
  });

  it('extends every range of an all_free window hold', async () => {
    const day = nextWeekday('wed', TZ);
    await call('POST', '/v1/bookings', { key: admin.key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('10:00'), end: day.at('10:30') } });
    const h = await call('POST', '/v1/holds', {
      key: admin.key,
      body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', duration_minutes: 30, window: { start: day.at('09:00'), end: day.at('11:00') }, coverage: 'all_free', ttl_seconds: 60 },
    });
    expect(h.status, h.text).toBe(200);
    expect(h.body.held_windows.length).toBe(2);
    const res = await extend(h.body.hold_id, 900);
    expect(res.status, res.text).toBe(200);
    expect(res.body.held_windows).toEqual(h.body.held_windows);
    // The further range still blocks after the old expiry would have passed: it carries the new one.
    const db = await getDb();
    const { claims } = await import('@/db/schema');
    const parts = await db.select().from(claims).where(eq(claims.partOfHoldId, h.body.hold_id));
    for (const p of parts) expect(p.expiresAt!.toISOString()).toBe(res.body.expires_at);
  });

  it('refuses an expired hold (410), a promoted one and a released one (409)', async () => {
    const day = nextWeekday('thu', TZ);
    const a = await hold(day.at('09:00'), day.at('09:30'));
    await patchClaim(a.body.hold_id, { expiresAt: new Date(Date.now() - 1000) });
    expectEnvelope(await extend(a.body.hold_id, 600), 410, 'HOLD_EXPIRED');
    const b = await hold(day.at('10:00'), day.at('10:30'));
    expect((await call('POST', `/v1/bookings/${b.body.hold_id}/confirm`, { key: admin.key, body: { start: day.at('10:00'), end: day.at('10:30') } })).status).toBe(200);
    expectEnvelope(await extend(b.body.hold_id, 600), 409, 'HOLD_ALREADY_PROMOTED');
    const c = await hold(day.at('11:00'), day.at('11:30'));
    expect((await call('DELETE', `/v1/holds/${c.body.hold_id}`, { key: admin.key })).status).toBe(200);
    expectEnvelope(await extend(c.body.hold_id, 600), 409, 'HOLD_NOT_ACTIVE');
    expectEnvelope(await extend('01900000-0000-7000-8000-000000000000', 600), 404, 'HOLD_NOT_FOUND');
  });
});
