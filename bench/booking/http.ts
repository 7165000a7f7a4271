/**
 * HTTP rows of the booking benchmark: the production build served by scripts/serve.mjs on
 * PostgreSQL and Redis, autocannon on POST /v1/bookings and on GET /v1/notifications, and the
 * server's resident memory while it runs.
 */
import { performance } from 'node:perf_hooks';
import type { Db } from '@/db/client';
import { fmt, log, sampleMemory } from '../lib/measure';
import { prepareApp, startServer, stopServer } from '../lib/nextServer';
import { autocannonRow, bookingRequests, combineRuns, HTTP_ROUNDS, randomIp, type HttpRun, type HttpSummary } from './load';
import { BENCH_DB_URL, CLASS, DURATION_S, flag, HTTP_CONNECTIONS, HTTP_WARMUP_S, opt, ownerEmail, OWNERS, PER_KEY, PREFILL, REDIS_URL, ROOT, SLOT_MS, slotStart, STAGE_DIR } from './options';
import type { Row } from './sampler';
import { claimsAround, mintKeys, seedOwners, type Seeded } from './seed';
import { tracingComparison, tracingConfigs } from './tracing';
import { createBooking } from '@/server/domain/claims';

/**
 * POST /v1/bookings/{id}/reschedule requests (docs/api.md "Reschedule"): bookings made before the
 * run (4 per connection, on the `tag` owners, at slots before the pre-filled ones) are moved, one
 * per request in turn, to the request's own fresh slot (the next index of this route's counter,
 * on owners of their own, pre-filled like the booking route's), with an Idempotency-Key and the
 * same key rotation as the booking route; the same claim runner decides them.
 */
async function rescheduleRequests(db: Db, seeded: Seeded, keys: string[], tag: string) {
  const pool: string[] = [];
  for (let i = 0; i < HTTP_CONNECTIONS * 4; i++) {
    const b = await createBooking(db, seeded.actor, { ownerEmail: ownerEmail(tag, i % OWNERS), meetingClass: CLASS, start: new Date(slotStart(-1 - i)), end: new Date(slotStart(-1 - i) + SLOT_MS) }, new Date(), null);
    if (!('booking_id' in b)) throw new Error('an approval policy held a bench booking');
    pool.push(b.booking_id);
  }
  let seq = PREFILL;
  const pathOf = (n: number) => `/v1/bookings/${pool[n % pool.length]}/reschedule`;
  return {
    method: 'POST',
    path: pathOf(0),
    make: () => {
      const n = seq++;
      if (n - PREFILL >= keys.length * PER_KEY) throw new Error('out of API keys');
      const start = slotStart(n);
      return {
        path: pathOf(n),
        headers: {
          authorization: `Bearer ${keys[Math.floor((n - PREFILL) / PER_KEY)]}`,
          'content-type': 'application/json',
          'idempotency-key': `${tag}-${n}`,
          'x-forwarded-for': randomIp(),
        },
        body: JSON.stringify({ start: new Date(start).toISOString(), end: new Date(start + SLOT_MS).toISOString() }),
      };
    },
  };
}


export async function benchHttp(db: Db, seeded: Seeded): Promise<HttpSummary> {
  const notes: string[] = [];
  const app = prepareApp(ROOT, STAGE_DIR, { reuse: flag('reuse-build'), inPlace: flag('in-place'), noBuild: flag('no-build') });
  if (app.buildSeconds !== null) notes.push(`build: \`next build\` of a staged copy took ${app.buildSeconds.toFixed(0)} s`);
  const tag = 'h';
  const ownerIds = await seedOwners(db, seeded, tag, OWNERS);
  const warmupS = HTTP_WARMUP_S;
  // Enough keys for 2,000 bookings/s over warm-up + measurement at PER_KEY requests per key (once per server with --tracing).
  // The reschedule route has keys of its own, as many.
  const nKeys = Math.ceil(((warmupS + DURATION_S) * 2000 * (flag('tracing') ? tracingConfigs({}, '', '').length : 1)) / PER_KEY);
  const t0 = performance.now();
  const keys = await mintKeys(db, seeded, nKeys);
  log(`  minted ${keys.length} API keys in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const profDir = opt('server-prof');
  if (flag('tracing')) return tracingComparison(app.dir, db, seeded, keys, notes, ownerIds, profDir);
  await seedOwners(db, seeded, 'hr', OWNERS);
  const moveKeys = await mintKeys(db, seeded, nKeys);
  const rescheduleRequest = await rescheduleRequests(db, seeded, moveKeys, 'hr');
  const server = await startServer(app.dir, { DATABASE_URL: BENCH_DB_URL, REDIS_URL, TRUST_PROXY: '1', LOG_LEVEL: 'silent' }, profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
  try {
    const pid = server.child.pid!;
    const idle = sampleMemory(pid, 100).stop();
    const rows: Row[] = [];
    let rssMax = 0;
    const bookingRequest = bookingRequests(keys, tag);
    const trivialRequest = {
      method: 'GET',
      path: '/v1/notifications',
      make: () => ({ headers: { authorization: `Bearer ${seeded.apiKey}`, 'x-forwarded-for': randomIp() } }),
    };
    // The two routes alternate in HTTP_ROUNDS rounds, so drift of a shared host (other tenants,
    // dead rows) weighs on both alike; each row sums its rounds.
    const bookingRuns: HttpRun[] = [];
    const moveRuns: HttpRun[] = [];
    const trivialRuns: HttpRun[] = [];
    for (let r = 0; r < HTTP_ROUNDS; r++) {
      const w = r === 0 ? warmupS : 0;
      bookingRuns.push(await autocannonRow(server, 'POST /v1/bookings', DURATION_S / HTTP_ROUNDS, w, bookingRequest));
      moveRuns.push(await autocannonRow(server, 'POST /v1/bookings/{id}/reschedule', DURATION_S / HTTP_ROUNDS, w, rescheduleRequest));
      trivialRuns.push(await autocannonRow(server, 'GET /v1/notifications', DURATION_S / HTTP_ROUNDS, w, trivialRequest));
    }
    const booking = combineRuns(bookingRuns);
    const move = combineRuns(moveRuns);
    const trivial = combineRuns(trivialRuns);
    rows.push(booking.row, move.row, trivial.row);
    notes.push(
      `HTTP: ${HTTP_ROUNDS} alternating rounds of ${fmt(DURATION_S / HTTP_ROUNDS)} s per route (warm-up ${warmupS} s before the first of each); per round, bookings/s ${bookingRuns.map((r) => r.row.perSecond.toFixed(0)).join(', ')}; ` +
        `reschedules/s ${moveRuns.map((r) => r.row.perSecond.toFixed(0)).join(', ')}; GET /v1/notifications/s ${trivialRuns.map((r) => r.row.perSecond.toFixed(0)).join(', ')}`,
    );
    rssMax = Math.max(booking.rssMaxMb, move.rssMaxMb, trivial.rssMaxMb);
    const around = await claimsAround(db, ownerIds);
    const end = sampleMemory(pid, 100).stop();
    return { rows, rssMaxMb: rssMax, hwmMb: end.hwmKb / 1024, idleRssMb: idle.maxRssKb / 1024, notes, around };
  } finally {
    await stopServer(server.child);
  }
}

