import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { closeDb } from '@/server/db';
import { driver, newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { allowLoopbackOutbound } from '../../helpers/outbound';
import { NEEDS_POSTGRES_SESSIONS } from '../../helpers/skips';
import { tcpSwitch } from '../../helpers/tcpSwitch';
import { call, nextWeekday, setupOwner } from '../scheduling/fixtures';

/**
 * A keyed request whose COMMIT went through but whose answer was lost with the connection (the
 * primary gone between the two, or the pooler dropping the client then: docs/operations.md "High
 * availability"). The request answers 503; a retry with the same Idempotency-Key must answer what
 * the committed request would have (a replay), never run again: a cancel run again answers 409
 * BOOKING_NOT_ACTIVE, and a client (bench/failover.ts) is then told its cancel failed while the
 * booking is cancelled; an owner created again answers 409 OWNER_ALREADY_EXISTS. Claims store
 * their answer in their own transaction, every other keyed write in the wrapper's transaction
 * around its handler (server/http/pipeline.ts). The service's pool goes through a loopback switch that drops the answer to
 * the COMMIT of the transaction carrying the test's marker.
 */
let sw: Awaited<ReturnType<typeof tcpSwitch>> | undefined;
let direct: postgres.Sql | undefined;
let admin: TestCustomer;
let owner: string;
let skipReason: string | undefined;
const saved = { url: process.env.DATABASE_URL, direct: process.env.DATABASE_DIRECT_URL };
// The webhook endpoint of the last case names a loopback URL.
allowLoopbackOutbound();

beforeAll(async () => {
  const url = process.env.DATABASE_URL;
  if ((await driver()) !== 'postgres' || !url) return void (skipReason = NEEDS_POSTGRES_SESSIONS);
  const target = new URL(url);
  sw = await tcpSwitch({ host: target.hostname || '127.0.0.1', port: Number(target.port || 5432) });
  const switched = new URL(url);
  switched.hostname = '127.0.0.1';
  switched.port = String(sw.port);
  await closeDb();
  process.env.DATABASE_URL = switched.toString();
  process.env.DATABASE_DIRECT_URL = url;
  direct = postgres(url, { max: 1, onnotice: () => {} });
  admin = await newCustomer();
  owner = await setupOwner(admin);
}, 120_000);

afterAll(async () => {
  await closeDb().catch(() => {});
  process.env.DATABASE_URL = saved.url;
  if (saved.direct === undefined) delete process.env.DATABASE_DIRECT_URL;
  else process.env.DATABASE_DIRECT_URL = saved.direct;
  await direct?.end({ timeout: 1 });
  await sw?.close();
});

/** Sent again with its key while the answer says "not now" (503, or the key still in flight), as bench/failover.ts's clients do. */
async function retried(send: () => Promise<ApiResponse>): Promise<ApiResponse> {
  let res = await send();
  for (let i = 0; i < 60 && (res.status === 503 || (res.status === 409 && res.body.error?.code === 'IDEMPOTENCY_IN_FLIGHT')); i++) {
    await new Promise((r) => setTimeout(r, 250));
    res = await send();
  }
  return res;
}

/** A meeting of the test owner booked on the next `weekday` (UTC), from `start` to `end`: its id. */
async function bookedMeeting(weekday: Parameters<typeof nextWeekday>[0], start: string, end: string): Promise<string> {
  const day = nextWeekday(weekday, 'UTC');
  const booked = await call('POST', '/v1/bookings', { key: admin.key, idempotencyKey: `cal-book-${Date.now()}`, body: { owner_email: owner, meeting_class: 'internal', start: day.at(start), end: day.at(end) } });
  expect(booked.status, booked.text).toBe(201);
  return booked.body.booking_id as string;
}

const statusOf = async (id: string) => (await direct!`select status from claims where id = ${id}`)[0]?.status as string | undefined;

describe('a keyed request whose COMMIT answer was lost (PostgreSQL)', () => {
  it('a cancel answered 503 after its commit replays 200 to the retry with its key, and is not run again', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const id = await bookedMeeting('wed', '10:00', '10:30');

    const marker = `commit-answer-lost-${Date.now()}`;
    const lost = sw!.loseCommitAnswer(marker);
    const key = `cal-cancel-${Date.now()}`;
    const cancel = () => call('POST', `/v1/bookings/${id}/cancel`, { key: admin.key, idempotencyKey: key, body: { reason: marker } });
    const first = await cancel();
    await lost;
    expect(first.status, first.text).toBe(503);
    expect(first.body.error.code).toBe('service_unavailable');
    // The server committed it all the same.
    expect(await statusOf(id)).toBe('cancelled');

    const again = await retried(cancel);
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ booking_id: id, status: 'cancelled' });
    // One cancellation: one audit row for it.
    const [{ n }] = await direct!`select count(*)::int as n from audit_log where booking_id = ${id} and action = 'booking.cancel'`;
    expect(n).toBe(1);
  }, 60_000);

  it('a hold extension answered 503 after its commit replays 200 to the retry with its key, and extends once', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const day = nextWeekday('fri', 'UTC');
    const held = await call('POST', '/v1/holds', { key: admin.key, idempotencyKey: `cal-hold-${Date.now()}`, body: { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('10:00'), end: day.at('10:30') } } });
    expect(held.status, held.text).toBe(200);
    const id = held.body.hold_id as string;

    // The key itself is the marker: the extension's audit row names it.
    const key = `cal-extend-${Date.now()}`;
    const lost = sw!.loseCommitAnswer(key);
    const extend = () => call('POST', `/v1/holds/${id}/extend`, { key: admin.key, idempotencyKey: key, body: { ttl_seconds: 900 } });
    const first = await extend();
    await lost;
    expect(first.status, first.text).toBe(503);
    const extensions = async () => (await direct!`select count(*)::int as n from audit_log where hold_id = ${id} and action = 'hold.extend'`)[0].n;
    expect(await extensions()).toBe(1);

    const again = await retried(extend);
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ hold_id: id, status: 'active' });
    expect(await extensions()).toBe(1);
  }, 60_000);

  it('a booking answered 503 after its commit replays 201 to the retry with its key, and books once', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const day = nextWeekday('thu', 'UTC');
    const marker = `commit-answer-lost-${Date.now()}`;
    const lost = sw!.loseCommitAnswer(marker);
    const key = `cal-book-${Date.now()}`;
    const book = () => call('POST', '/v1/bookings', { key: admin.key, idempotencyKey: key, body: { owner_email: owner, meeting_class: 'internal', start: day.at('11:00'), end: day.at('11:30'), title: marker } });
    const first = await book();
    await lost;
    expect(first.status, first.text).toBe(503);
    const rows = await direct!`select id::text, status from claims where title = ${marker}`;
    expect(rows).toHaveLength(1);

    const again = await retried(book);
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ booking_id: rows[0].id, status: 'confirmed' });
    expect(await direct!`select id from claims where title = ${marker}`).toHaveLength(1);
  }, 60_000);

  it('a booking edit (PATCH) answered 503 after its commit replays 200 to the retry with its key, and edits once', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const id = await bookedMeeting('tue', '14:00', '14:30');

    // The new title is the marker: only the edit's own statements carry it.
    const marker = `commit-answer-lost-${Date.now()}`;
    const lost = sw!.loseCommitAnswer(marker);
    const key = `cal-patch-${Date.now()}`;
    const edit = () => call('PATCH', `/v1/bookings/${id}`, { key: admin.key, idempotencyKey: key, body: { title: marker } });
    const first = await edit();
    await lost;
    expect(first.status, first.text).toBe(503);
    const edits = async () => (await direct!`select count(*)::int as n from audit_log where booking_id = ${id} and action = 'booking.update'`)[0].n;
    expect(await edits()).toBe(1);
    expect((await direct!`select title from claims where id = ${id}`)[0].title).toBe(marker);

    const again = await retried(edit);
    expect(again.status, again.text).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ booking_id: id, title: marker, status: 'confirmed' });
    expect(await edits()).toBe(1);
  }, 60_000);

  it('an owner created (POST /v1/owners) answered 503 after its commit replays 201 to the retry with its key, and is created once', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    // The name is the marker: the calendar gate before the key looks the email up, never the name.
    const marker = `commit-answer-lost-${Date.now()}`;
    const email = `lost-${Date.now()}@example.com`;
    const lost = sw!.loseCommitAnswer(marker);
    const key = `cal-owner-${Date.now()}`;
    const create = () => call('POST', '/v1/owners', { key: admin.key, idempotencyKey: key, body: { email, name: marker, time_zone: 'Europe/Paris' } });
    const first = await create();
    await lost;
    expect(first.status, first.text).toBe(503);
    const creations = async () => (await direct!`select count(*)::int as n from audit_log where owner_email = ${email} and action = 'owner.create'`)[0].n;
    expect(await creations()).toBe(1);

    const again = await retried(create);
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ owner_email: email, name: marker, time_zone: 'Europe/Paris' });
    // The replay is the stored answer, byte for byte: what a first answer would have been.
    const [row] = await direct!`select response_status, response_body from idempotency_records where key = ${key}`;
    expect(row.response_status).toBe(201);
    expect(again.text).toBe(row.response_body);
    expect(await creations()).toBe(1);
    expect(await direct!`select id from owners where email = ${email}`).toHaveLength(1);
  }, 60_000);

  it('a webhook endpoint created answered 503 after its commit replays 201 (its secret withheld) to the retry with its key, and is created once', async (ctx) => {
    if (skipReason) ctx.skip(skipReason);
    const marker = `commit-answer-lost-${Date.now()}`;
    const lost = sw!.loseCommitAnswer(marker);
    const key = `cal-webhook-${Date.now()}`;
    const create = () => call('POST', '/v1/webhooks', { key: admin.key, idempotencyKey: key, body: { url: 'http://127.0.0.1:9/hook', events: ['waitlist.offered'], description: marker } });
    const first = await create();
    // (Checked before waiting for the loss: an insert outside a transaction has no COMMIT to lose.)
    expect(first.status, first.text).toBe(503);
    await lost;
    const endpoints = async () => (await direct!`select id::text from webhook_endpoints where description = ${marker}`).map((r) => r.id);
    expect(await endpoints()).toHaveLength(1);

    const again = await retried(create);
    expect(again.status, again.text).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // A secret is shown once and never stored with the answer: the replay answers it as null.
    expect(again.body).toMatchObject({ id: (await endpoints())[0], description: marker, secret: null });
    expect(await endpoints()).toHaveLength(1);
  }, 60_000);
});
