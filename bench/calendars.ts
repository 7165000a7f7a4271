/**
 * Connected-calendar benchmark against a real Radicale on loopback (docs/calendars.md).
 *
 *   npx tsx bench/calendars.ts [--events=5000] [--iter=200]   (Radicale's port from RADICALE_PORTS, tests/helpers/radicale.ts)
 *
 * Seeds one CalDAV calendar with N events (10 % weekly series of 8 instances, the rest single
 * 15-minute events, laid on a grid so no two instances overlap) in one PUT of the collection,
 * then measures on the embedded PGlite (in memory):
 *   - initial sync (sync token, time-range calendar-query of hrefs and etags, calendar-multiget,
 *     ical.js expansion, mirror insert): target <= 10 s for 5,000 events;
 *   - incremental sync after one new event (one sync-collection REPORT from the stored token), five
 *     times, each after its own new event: median and worst; target <= 300 ms. Every request the
 *     sync sends is timed from send to the end of the answer's body (the bench wraps `fetch`), so
 *     each sync splits into the wait for Radicale and our share (tsdav, ical.js, database);
 *   - Radicale alone: five more times one new event and the same REPORT from the stored token,
 *     sent raw (a real change, so Radicale also writes the new token's state); then the same REPORT
 *     when nothing changed, and a ctag PROPFIND, for comparison;
 *   - availability search p50/p99 (72 h window inside the dense part) for the CalDAV owner (busy
 *     time read from the mirror) and for an internal-calendar owner holding the same instances as
 *     provider-source bookings: target CalDAV p99 <= 1.2 x internal p99.
 * Prints a table; its figures are recorded by hand in docs/benchmarks.md "Connected calendars", in the
 * layout of bench/lib/benchDoc.ts.
 */
import { performance } from 'node:perf_hooks';
import { eq } from 'drizzle-orm';

process.env.DB_DRIVER = 'pglite-memory';
process.env.DATABASE_URL = '';
process.env.CALENDAR_FRESH_SECONDS = '86400';
process.env.CALENDAR_HARD_STALE_SECONDS = '86400';
process.env.CALENDAR_SYNC_TIMEOUT_MS = '120000';
// Radicale listens on loopback: the outbound guard lets it through (docs/reliability.md "Outbound requests").
process.env.OUTBOUND_ALLOW_PRIVATE = '1';
process.env.CALENDAR_SECRET_KEYS = `bench:${Buffer.alloc(32, 3).toString('base64')}`;

const arg = (name: string, dflt: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
const EVENTS = arg('events', 5000);
const ITER = arg('iter', 200);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ical = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

async function main() {
  const { startRadicale } = await import('../tests/helpers/radicale');
  const { getDb, closeDb } = await import('@/server/db');
  const { bootstrapCustomer } = await import('@/server/domain/customerService');
  const { createOwner } = await import('@/server/domain/ownerService');
  const { createMeetingClass } = await import('@/server/domain/meetingClassService');
  const { sealSecret } = await import('@/server/domain/sealing');
  const { syncCalendar } = await import('@/server/domain/calendars/sync');
  const { searchAvailability } = await import('@/server/domain/claims');
  const { calendarEvents, calendars, claims } = await import('@/db/schema');
  const { newId } = await import('@/server/domain/ids');

  // Every request's time from send to the end of the answer's body (the bench's own bookkeeping).
  const http = { ms: 0 };
  const fetchOf = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const t = performance.now();
    const res = await fetchOf(input, init);
    const body = await res.arrayBuffer();
    http.ms += performance.now() - t;
    return new Response(body.byteLength ? body : null, { status: res.status, statusText: res.statusText, headers: res.headers });
  }) as typeof fetch;

  const radicale = await startRadicale('bench', 'bench-pw');
  try {
    const db = await getDb();
    const boot = await bootstrapCustomer(db, 'calendar bench');
    const customerId = boot.customer_id;
    await createMeetingClass(db, customerId, { name: 'internal', priority: 30 });
    const actor = { kind: 'agent' as const, agentId: boot.agent_id, customerId, keyId: 'bench', ownerScope: 'org:*', permissions: ['read_availability', 'create_holds', 'create_bookings', 'preempt', 'read_audit'] as never };
    const caldavOwner = await createOwner(db, customerId, { email: 'caldav@bench.example', time_zone: 'UTC' });
    const internalOwner = await createOwner(db, customerId, { email: 'internal@bench.example', time_zone: 'UTC' });

    // The grid: day 0 is the next UTC midnight + 1 day; 96 quarter-hour slots a day.
    const day0 = Math.ceil(Date.now() / 86_400_000) * 86_400_000 + 86_400_000;
    const Q = 15 * 60_000;
    const series = Math.round(EVENTS * 0.1);
    const singles = EVENTS - series;
    const vevents: string[] = [];
    const instances: { start: number; end: number }[] = [];
    for (let i = 0; i < series; i++) {
      const start = day0 + (i % 7) * 86_400_000 + Math.floor(i / 7) * Q;
      vevents.push(`BEGIN:VEVENT\r\nUID:series-${i}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${ical(start)}\r\nDTEND:${ical(start + Q)}\r\nRRULE:FREQ=WEEKLY;COUNT=8\r\nEND:VEVENT`);
      for (let k = 0; k < 8; k++) instances.push({ start: start + k * 7 * 86_400_000, end: start + k * 7 * 86_400_000 + Q });
    }
    const denseFrom = day0 + 56 * 86_400_000;
    for (let i = 0; i < singles; i++) {
      const start = denseFrom + i * 2 * Q; // every other quarter hour
      vevents.push(`BEGIN:VEVENT\r\nUID:single-${i}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${ical(start)}\r\nDTEND:${ical(start + Q)}\r\nEND:VEVENT`);
      instances.push({ start, end: start + Q });
    }
    const put = await fetch(radicale.calendarUrl, {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from('bench:bench-pw').toString('base64')}`, 'content-type': 'text/calendar' },
      body: `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\n${vevents.join('\r\n')}\r\nEND:VCALENDAR\r\n`,
    });
    if (!put.ok) throw new Error(`seeding PUT failed: ${put.status}`);
    console.log(`seeded ${EVENTS} events (${series} weekly series x 8, ${singles} single), ${instances.length} instances`);

    // The calendar row as connectCaldav leaves it (discovery is not part of the measure).
    const calendar = { id: newId() };
    await db.insert(calendars).values({
      id: calendar.id, customerId, ownerId: caldavOwner.id, type: 'caldav', status: 'active', displayName: 'Work',
      settings: { serverUrl: radicale.url, username: 'bench', calendarUrl: radicale.calendarUrl }, credentials: sealSecret({ password: 'bench-pw' }),
    });
    http.ms = 0;
    const t0 = performance.now();
    const sync = await syncCalendar(db, calendar.id, new Date());
    const initialMs = performance.now() - t0;
    const initialHttpMs = http.ms;
    if (sync.outcome !== 'synced') throw new Error(`initial sync: ${JSON.stringify(sync)}`);
    const mirrored = (await db.select({ id: calendarEvents.id }).from(calendarEvents).where(eq(calendarEvents.calendarId, calendar.id))).length;

    // One new event on the server, on a quarter no series uses.
    let added = 0;
    const addEvent = async () => {
      const k = added++;
      const extra = denseFrom - (2 + k) * 86_400_000 + 95 * Q;
      await radicale.putEvent(`one-more-${k}.ics`, `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//bench//EN\r\nBEGIN:VEVENT\r\nUID:one-more-${k}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:${ical(extra)}\r\nDTEND:${ical(extra + Q)}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n`);
      instances.push({ start: extra, end: extra + Q });
    };
    const incremental: number[] = [];
    const incrementalHttp: number[] = [];
    const incrementalOurs: number[] = [];
    for (let k = 0; k < 5; k++) {
      await addEvent();
      http.ms = 0;
      const t1 = performance.now();
      const inc = await syncCalendar(db, calendar.id, new Date());
      const ms = performance.now() - t1;
      incremental.push(ms);
      incrementalHttp.push(http.ms);
      incrementalOurs.push(ms - http.ms);
      if (inc.outcome !== 'synced' || inc.changed !== 1) throw new Error(`incremental sync: ${JSON.stringify(inc)}`);
    }

    // Radicale alone: the same REPORT from the stored token, sent raw, after a real change (then a sync, untimed, moves the token on).
    const storedToken = async () => {
      const [row] = await db.select().from(calendars).where(eq(calendars.id, calendar.id));
      return (row.syncState as { cursor?: { syncToken?: string } } | null)?.cursor?.syncToken ?? '';
    };
    const auth = { authorization: `Basic ${Buffer.from('bench:bench-pw').toString('base64')}`, 'content-type': 'application/xml' };
    const rawOnce = async (method: string, headers: Record<string, string>, body: string) => {
      const t = performance.now();
      const res = await fetchOf(radicale.calendarUrl, { method, headers: { ...auth, ...headers }, body });
      await res.text();
      return performance.now() - t;
    };
    const report = (token: string) =>
      `<?xml version="1.0"?><d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/><c:calendar-data/></d:prop></d:sync-collection>`;
    const serverChanged: number[] = [];
    for (let k = 0; k < 5; k++) {
      await addEvent();
      serverChanged.push(await rawOnce('REPORT', {}, report(await storedToken())));
      const moved = await syncCalendar(db, calendar.id, new Date());
      if (moved.outcome !== 'synced' || moved.changed !== 1) throw new Error(`sync after the raw REPORT: ${JSON.stringify(moved)}`);
    }
    const serverUnchanged: number[] = [];
    const serverCtag: number[] = [];
    const token = await storedToken();
    for (let k = 0; k < 5; k++) serverUnchanged.push(await rawOnce('REPORT', {}, report(token)));
    for (let k = 0; k < 5; k++) serverCtag.push(await rawOnce('PROPFIND', { depth: '0' }, `<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:cs="http://calendarserver.org/ns/"><d:prop><cs:getctag/></d:prop></d:propfind>`));

    const [internalCal] = await db.select().from(calendars).where(eq(calendars.ownerId, internalOwner.id));
    const now = new Date();
    const rows = instances.map((x) => ({
      id: newId(), customerId, ownerId: internalOwner.id, calendarId: internalCal.id, kind: 'booking' as const, status: 'confirmed' as const,
      startAt: new Date(x.start), endAt: new Date(x.end), source: 'provider' as const, createdAt: now, updatedAt: now,
    }));
    for (let i = 0; i < rows.length; i += 1000) await db.insert(claims).values(rows.slice(i, i + 1000));

    const window = { start: new Date(denseFrom + 2 * 86_400_000), end: new Date(denseFrom + 5 * 86_400_000) };
    const measure = async (email: string) => {
      const xs: number[] = [];
      for (let i = 0; i < ITER + 20; i++) {
        const s = performance.now();
        const r = await searchAvailability(db, actor, { ownerEmail: email, meetingClass: 'internal', durationMinutes: 15, window, maxResults: 500 }, new Date());
        if (i >= 20) xs.push(performance.now() - s);
        if (i === 0 && r.slots.length === 0) throw new Error('no slots');
      }
      return xs;
    };
    const a = await measure(internalOwner.email);
    const b = await measure(caldavOwner.email);
    const c = await measure(internalOwner.email);
    const internal = [...a, ...c];
    const out = [
      ['initial sync', `${EVENTS} events -> ${mirrored} mirror rows`, `${initialMs.toFixed(0)} ms`, '<= 10,000 ms'],
      ['  waiting for Radicale', 'its requests, send to end of body', `${initialHttpMs.toFixed(0)} ms`, ''],
      ['incremental sync', 'one new event, 5 times: median (worst)', `${pct(incremental, 50).toFixed(0)} ms (${Math.max(...incremental).toFixed(0)} ms)`, '<= 300 ms'],
      ['  waiting for Radicale', 'its one REPORT: median (worst)', `${pct(incrementalHttp, 50).toFixed(0)} ms (${Math.max(...incrementalHttp).toFixed(0)} ms)`, ''],
      ['  ours', 'tsdav, ical.js, lease and mirror statements: median (worst)', `${pct(incrementalOurs, 50).toFixed(1)} ms (${Math.max(...incrementalOurs).toFixed(1)} ms)`, ''],
      ['Radicale alone', 'one new event, the same REPORT sent raw: median (worst) of 5', `${pct(serverChanged, 50).toFixed(0)} ms (${Math.max(...serverChanged).toFixed(0)} ms)`, ''],
      ['  nothing changed', 'the same REPORT, no change since the token (median of 5)', `${pct(serverUnchanged, 50).toFixed(0)} ms`, ''],
      ['  for comparison', 'a raw ctag PROPFIND (median of 5)', `${pct(serverCtag, 50).toFixed(0)} ms`, ''],
      ['search p50 internal', `${ITER * 2} runs`, `${pct(internal, 50).toFixed(2)} ms`, ''],
      ['search p99 internal', '', `${pct(internal, 99).toFixed(2)} ms`, ''],
      ['search p50 caldav', `${ITER} runs`, `${pct(b, 50).toFixed(2)} ms`, ''],
      ['search p99 caldav', '', `${pct(b, 99).toFixed(2)} ms`, `<= 1.2 x internal (${(pct(b, 99) / pct(internal, 99)).toFixed(2)} x)`],
    ];
    console.log('| measure | scenario | result | target |\n|---|---|---|---|');
    for (const r of out) console.log(`| ${r.join(' | ')} |`);
  } finally {
    await radicale.stop();
    await closeDb();
  }
}

main().catch((err) => {
  console.error(String(err?.cause ?? err).slice(0, 500));
  process.exit(1);
});
