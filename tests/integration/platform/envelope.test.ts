import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { enqueueNotification, type NotificationData } from '@/server/domain/notificationService';
import { api, expectEnvelope, newCustomer, type TestCustomer } from '../../helpers/app';

let admin: TestCustomer;

/** A queued notification as the document describes its kind (every answer is checked against it), told apart by its id field. */
const span = { start: '2030-01-07T09:00:00.000Z', end: '2030-01-07T09:30:00.000Z' };
function notice(kind: 'booking.cancelled' | 'hold.expired' | 'booking.preempted', id: string): NotificationData[typeof kind] {
  const local = { start_local: '2030-01-07T09:00:00+00:00', end_local: '2030-01-07T09:30:00+00:00' };
  if (kind === 'hold.expired') return { hold_id: id, ...span };
  if (kind === 'booking.cancelled') return { booking_id: id, owner_email: 'queue@example.com', ...span, ...local, reason: null };
  return { booking_id: id, claim_kind: 'booking' as const, owner_email: 'queue@example.com', ...span, preempted_by_meeting_class: 'external', reason: 'a higher priority meeting' };
}
const noticeId = (n: { data: { booking_id?: string; hold_id?: string } }) => n.data.booking_id ?? n.data.hold_id;
beforeAll(async () => {
  admin = await newCustomer();
});

describe('the error envelope and transport errors', () => {
  it('answers unknown /v1 and /public paths with 404 in the envelope, for every method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expectEnvelope(await api(method, '/v1/no-such-thing'), 404, 'not_found');
      expectEnvelope(await api(method, '/public/no/such/thing'), 404, 'not_found');
    }
    expectEnvelope(await api('GET', '/v1/agents/abc/keys/def/extra'), 404, 'not_found');
  });

  it('answers an unsupported method with 405 and Allow', async () => {
    const res = await api('DELETE', '/v1/meeting-classes', { key: admin.key });
    expectEnvelope(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, POST');
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await api('POST', '/v1/meeting-classes', { key: admin.key, rawBody: '{"name": "x",', headers: { 'content-type': 'application/json' } });
    expectEnvelope(res, 400, 'invalid_json');
  });

  it('answers a non-JSON content type with 415', async () => {
    const res = await api('POST', '/v1/meeting-classes', { key: admin.key, rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expectEnvelope(res, 415, 'unsupported_media_type');
  });

  it('answers an oversized body with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(300 * 1024), priority: 1 });
    expectEnvelope(await api('POST', '/v1/meeting-classes', { key: admin.key, rawBody: big, headers: { 'content-type': 'application/json' } }), 413, 'payload_too_large');
  });

  it('answers validation failures with 400 and the failing fields in error.details', async () => {
    const res = await api('POST', '/v1/meeting-classes', { key: admin.key, body: { name: '', priority: 'high', surprise: true } });
    const err = expectEnvelope(res, 400, 'invalid_request');
    const paths = err.details.fields.map((f: { path: string }) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['body.name', 'body.priority']));
    expect(JSON.stringify(err.details)).toContain('surprise');
  });

  it('carries a request id and no-store on every response', async () => {
    const res = await api('GET', '/v1/meeting-classes', { key: admin.key, headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await api('GET', '/v1/nothing')).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('drains the agent notification queue into error envelopes, oldest first, once', async () => {
    const db = await getDb();
    await enqueueNotification(db, { customerId: admin.customerId, agentId: admin.agentId, kind: 'booking.cancelled', data: notice('booking.cancelled', 'n1'), now: new Date(Date.now() - 1000) });
    await enqueueNotification(db, { customerId: admin.customerId, agentId: admin.agentId, kind: 'hold.expired', data: notice('hold.expired', 'n2') });
    const first = await api('POST', '/v1/meeting-classes', { key: admin.key, body: {} });
    expectEnvelope(first, 400, 'invalid_request');
    expect(first.body.pending_notifications.map(noticeId)).toEqual(['n1', 'n2']);
    expect(first.body.pending_notifications[0]).toMatchObject({ kind: 'booking.cancelled', id: expect.any(String), created_at: expect.any(String) });
    const second = await api('POST', '/v1/meeting-classes', { key: admin.key, body: {} });
    expect(second.body.pending_notifications).toEqual([]);
  });
});

describe('notifications on transport errors', () => {
  it('drains an authenticated agent\'s queue into 404 and 405 envelopes too', async () => {
    const db = await getDb();
    await enqueueNotification(db, { customerId: admin.customerId, agentId: admin.agentId, kind: 'booking.preempted', data: notice('booking.preempted', 'n404') });
    const missing = await api('GET', '/v1/no-such-endpoint', { key: admin.key });
    expectEnvelope(missing, 404, 'not_found');
    expect(missing.body.pending_notifications.map(noticeId)).toEqual(['n404']);
    await enqueueNotification(db, { customerId: admin.customerId, agentId: admin.agentId, kind: 'booking.preempted', data: notice('booking.preempted', 'n405') });
    const wrongMethod = await api('PATCH', '/v1/owners', { key: admin.key });
    expectEnvelope(wrongMethod, 405, 'method_not_allowed');
    expect(wrongMethod.body.pending_notifications.map(noticeId)).toEqual(['n405']);
    // an invalid key: still 404, nothing drained
    expect((await api('GET', '/v1/no-such-endpoint', { key: 'ak_invalid' })).body.pending_notifications).toEqual([]);
  });
});
