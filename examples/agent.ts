/**
 * A scheduling agent, end to end, against a running server (`npm run dev` prints a demo key):
 *
 *   npx tsx examples/agent.ts --key ak_... [--base-url http://localhost:3000] [--owner demo.owner@example.com]
 *   (or API_KEY, BASE_URL, OWNER_EMAIL in the environment; WEBHOOK_PORT picks the receiver's port)
 *
 * It starts a webhook receiver on loopback and registers it, searches availability, asks for
 * a time the owner does not work (the middle of the night), meets the counter-proposal by taking
 * the first alternative, holds a window starting there, confirms it, waits for the signed booking.confirmed webhook
 * (verified as docs/webhooks.md shows), drains its notifications, and removes its endpoint.
 * Each step is printed. Exit code 0 when every step worked. Plain fetch, no client library.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { 'base-url': { type: 'string' }, key: { type: 'string' }, owner: { type: 'string' }, 'webhook-port': { type: 'string' } },
});
const BASE = (args['base-url'] ?? process.env.BASE_URL ?? 'http://localhost:3000').replace(/\/$/, '');
const KEY = args.key ?? process.env.API_KEY ?? '';
const OWNER = args.owner ?? process.env.OWNER_EMAIL ?? 'demo.owner@example.com';
const WEBHOOK_PORT = Number(args['webhook-port'] ?? process.env.WEBHOOK_PORT ?? 0);
const CLASS = 'external';

type Slot = { start: string; end: string };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a plain example: answers read as JSON
type Reply = { status: number; body: any };

function step(title: string, detail?: unknown) {
  console.log(`\n== ${title}`);
  if (detail !== undefined) console.log(typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2));
}

async function api(method: string, path: string, body?: unknown): Promise<Reply> {
  const headers: Record<string, string> = { authorization: `Bearer ${KEY}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['idempotency-key'] = randomUUID(); // one per logical call
  const res = await fetch(`${BASE}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

function expectStatus(r: Reply, status: number, what: string) {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status} ${JSON.stringify(r.body)}`);
}

/** docs/webhooks.md "Verifying a delivery". */
function verifyWebhook(secret: string, headers: http.IncomingHttpHeaders, body: string, toleranceSeconds = 300): boolean {
  const timestamp = String(headers['webhook-timestamp'] ?? '');
  const signature = String(headers['webhook-signature'] ?? '');
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex'), 'hex');
  const given = Buffer.from(signature.startsWith('v1=') ? signature.slice(3) : '', 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

type Delivery = { id: string; verified: boolean; event: { id: string; type: string; data: Record<string, unknown> } };

/** A receiver that answers 204, deduplicates on Webhook-Id and hands each new event to the waiters. */
async function startReceiver(getSecret: () => string) {
  const seen = new Set<string>();
  const events: Delivery[] = [];
  const waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const verified = verifyWebhook(getSecret(), req.headers, body);
      res.writeHead(verified ? 204 : 400).end();
      if (!verified || seen.has(id)) return;
      seen.add(id);
      events.push({ id, verified, event: JSON.parse(body) });
      waiters.splice(0).forEach((w) => w());
    });
  });
  await new Promise<void>((resolve) => server.listen(WEBHOOK_PORT, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  async function waitFor(match: (d: Delivery) => boolean, timeoutMs: number): Promise<Delivery> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error('no matching webhook arrived in time');
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 500);
      });
    }
  }
  return { url, waitFor, close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }) };
}

/** A weekday at least two days ahead (UTC date). */
function targetDay(): Date {
  const d = new Date();
  d.setUTCHours(0, 0, 0, 0);
  d.setUTCDate(d.getUTCDate() + 2);
  while (d.getUTCDay() === 0 || d.getUTCDay() === 6) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}
const at = (day: Date, hours: number, minutes = 0) => new Date(day.getTime() + (hours * 60 + minutes) * 60_000).toISOString();

async function main() {
  if (!KEY) throw new Error('give the API key: --key ak_... or API_KEY (npm run dev prints the demo key)');
  let secret = '';
  const receiver = await startReceiver(() => secret);
  let webhookId: string | undefined;
  try {
    step(`Webhook receiver listening on ${receiver.url}; registering it`);
    const created = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['booking.created', 'booking.confirmed', 'booking.preempted', 'booking.cancelled', 'hold.expired'], description: 'examples/agent.ts' });
    if (created.body?.error?.code === 'WEBHOOK_URL_REFUSED') {
      // Outside `npm run dev` the server refuses loopback receivers; its message names the setting (docs/webhooks.md "Which URLs").
      throw new Error(`register webhook: the server refuses this receiver: ${created.body.error.message}`);
    }
    expectStatus(created, 201, 'register webhook');
    secret = created.body.secret;
    webhookId = created.body.id;
    console.log(`endpoint ${webhookId}, events ${created.body.events.join(', ')} (secret shown once, kept in memory)`);

    const day = targetDay();
    const search = await api('POST', '/v1/availability/search', { owner_email: OWNER, meeting_class: CLASS, duration_minutes: 30, window: { start: at(day, 0), end: at(day, 24) }, max_results: 5 });
    expectStatus(search, 200, 'availability search');
    step(`Searched ${OWNER} on ${day.toISOString().slice(0, 10)}: first free 30-minute slots`, search.body.slots);

    const wanted: Slot = { start: at(day, 2), end: at(day, 2, 30) };
    step(`The requester asked for ${wanted.start} (the middle of the owner's night); trying to hold it`);
    const refused = await api('POST', '/v1/holds', { owner_email: OWNER, meeting_class: CLASS, hold_scope: 'candidate', candidate: wanted });
    if (refused.status !== 409 || refused.body.error?.code !== 'ARBITRATION_REJECTED' || !refused.body.alternatives?.length) {
      throw new Error(`expected a counter-proposal, got ${refused.status} ${JSON.stringify(refused.body)}`);
    }
    console.log(`${refused.body.error.code} (${refused.body.error.reason}): ${refused.body.error.message}`);
    console.log('alternatives:', JSON.stringify(refused.body.alternatives));
    const first = refused.body.alternatives[0];
    const alt: Slot = { start: first.start, end: first.end };

    // A window hold takes genuinely free time only (it never preempts, while an alternative may
    // name time a lower-priority meeting holds), so the window runs from the alternative on.
    const window: Slot = { start: alt.start, end: new Date(Date.parse(alt.end) + 3 * 3_600_000).toISOString() };
    step(`Taking the first alternative: holding 30 minutes in the window ${window.start} - ${window.end}`);
    const hold = await api('POST', '/v1/holds', { owner_email: OWNER, meeting_class: CLASS, hold_scope: 'window', window, duration_minutes: 30 });
    expectStatus(hold, 200, 'window hold');
    console.log(`hold ${hold.body.hold_id}: held ${hold.body.held_window.start} - ${hold.body.held_window.end}, expires in ${hold.body.expires_in_seconds} s`);

    const slot: Slot = { start: hold.body.held_window.start, end: new Date(Date.parse(hold.body.held_window.start) + 30 * 60_000).toISOString() };
    step(`Confirming ${slot.start} - ${slot.end}`);
    const booking = await api('POST', `/v1/bookings/${hold.body.hold_id}/confirm`, { ...slot, title: 'Intro call (examples/agent.ts)' });
    expectStatus(booking, 200, 'confirm');
    console.log(`booking ${booking.body.booking_id}: ${booking.body.status}`);

    step('Waiting for the booking.confirmed webhook');
    const got = await receiver.waitFor((d) => d.event.type === 'booking.confirmed' && d.event.data.booking_id === booking.body.booking_id, 30_000);
    console.log(`received ${got.event.type} (Webhook-Id ${got.id}), signature verified:`, JSON.stringify(got.event.data));

    step('Draining notifications');
    const notes = await api('GET', '/v1/notifications');
    expectStatus(notes, 200, 'notifications');
    console.log(notes.body.notifications.length ? JSON.stringify(notes.body.notifications, null, 2) : '(none pending)');

    step('Done: every step worked');
  } finally {
    if (webhookId) await api('DELETE', `/v1/webhooks/${webhookId}`).catch(() => undefined);
    await receiver.close();
  }
}

main().catch((err) => {
  console.error(`\nexamples/agent.ts failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
