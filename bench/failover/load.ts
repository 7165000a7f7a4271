/**
 * The load of bench/failover.ts: agents booking, holding and confirming, and cancelling what they
 * booked, spread over the app instances, each request retried with its Idempotency-Key while the
 * service answers 503 (or IDEMPOTENCY_IN_FLIGHT, or the connection fails), as a client should
 * through a failover (docs/operations.md "High availability"). Records every answer's status,
 * the times of the successes (for the unavailability windows), and the acknowledged work.
 */
import { requestJson, type JsonAnswer } from '../lib/httpClient';

type Acked = {
  /** booking id -> the status it must have at the end (confirmed, or cancelled once a cancel was acknowledged). */
  bookings: Map<string, 'confirmed' | 'cancelled'>;
  /** Acknowledged holds (any status at the end, but present). */
  holds: Set<string>;
  confirms: number;
  cancels: number;
  /** booking id -> the final answer to a cancel of it that was not 200 ("409 BOOKING_NOT_ACTIVE", "gave up"), to explain a booking found cancelled that the client was not told of. */
  cancelsRefused: Map<string, string>;
};

/** `successes`: [sent, answered] times (ms) of every 2xx; `attempts`: [sent, answered, status (0: no answer)] of every attempt (--attempts); `unanswered`: [sent, given up] of the requests left unanswered. */
export type LoadStats = { byStatus: Map<number, number>; successes: [number, number][]; attempts: [number, number, number][]; acked: Acked; networkErrors: number; unanswered: [number, number][]; gaveUp: number };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DAY_MS = 86_400_000;
const RETRY_MS = 200;
/** A request the service has not answered in this long is given up (counted as unanswered) and retried with its key. */
const ANSWER_TIMEOUT_MS = 30_000;

export function newStats(): LoadStats {
  return { byStatus: new Map(), successes: [], attempts: [], acked: { bookings: new Map(), holds: new Set(), confirms: 0, cancels: 0, cancelsRefused: new Map() }, networkErrors: 0, unanswered: [], gaveUp: 0 };
}

/** A request with its Idempotency-Key, retried (same key) while the answer says "not now"; the final answer, or null when it never came. */
async function keyed(stats: LoadStats, bases: string[], pick: () => number, path: string, body: unknown, apiKey: string): Promise<JsonAnswer | null> {
  const started = Date.now();
  const idem = `fo-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  while (Date.now() - started < 90_000) {
    let res: JsonAnswer;
    const sent = Date.now();
    try {
      res = await requestJson(bases[pick() % bases.length], 'POST', path, { authorization: `Bearer ${apiKey}`, 'idempotency-key': idem }, body, ANSWER_TIMEOUT_MS);
    } catch (err) {
      stats.attempts.push([sent, Date.now(), 0]);
      if ((err as { code?: string }).code === 'BENCH_TIMEOUT') stats.unanswered.push([sent, Date.now()]);
      else stats.networkErrors++;
      await sleep(300);
      continue;
    }
    stats.byStatus.set(res.status, (stats.byStatus.get(res.status) ?? 0) + 1);
    stats.attempts.push([sent, Date.now(), res.status]);
    const busy = res.status === 503 || res.status === 429 || (res.status === 409 && res.body?.error?.code === 'IDEMPOTENCY_IN_FLIGHT');
    if (!busy) {
      if (res.status < 300) stats.successes.push([sent, Date.now()]);
      return res;
    }
    // Sooner than Retry-After (2 s): the bench measures the service's window, not the client's back-off.
    await sleep(RETRY_MS);
  }
  stats.gaveUp++;
  return null;
}

export type LoadPlan = { bases: string[]; keys: string[]; owners: string[]; meetingClass: string; dayOffset: number; paceMs: number };

/** Run one agent per key until `stop()` says so. */
export async function runLoad(plan: LoadPlan, stats: LoadStats, stop: () => boolean): Promise<void> {
  let rr = 0;
  const pick = () => rr++;
  await Promise.all(
    plan.keys.map(async (apiKey) => {
      const mine: string[] = [];
      while (!stop()) {
        const owner = plan.owners[Math.floor(Math.random() * plan.owners.length)];
        const day = new Date(Date.now() + (plan.dayOffset + Math.floor(Math.random() * 40)) * DAY_MS);
        day.setUTCHours(9 + Math.floor(Math.random() * 8), Math.random() < 0.5 ? 0 : 30, 0, 0);
        const start = day.toISOString();
        const end = new Date(day.getTime() + 30 * 60_000).toISOString();
        const r = Math.random();
        if (r < 0.2 && mine.length) {
          const id = mine.splice(Math.floor(Math.random() * mine.length), 1)[0];
          const res = await keyed(stats, plan.bases, pick, `/v1/bookings/${id}/cancel`, { reason: 'failover bench' }, apiKey);
          if (res && res.status === 200) {
            stats.acked.bookings.set(id, 'cancelled');
            stats.acked.cancels++;
          } else stats.acked.cancelsRefused.set(id, res ? `${res.status} ${res.body?.error?.code ?? ''}`.trim() : 'gave up');
        } else if (r < 0.55) {
          const hold = await keyed(stats, plan.bases, pick, '/v1/holds', { owner_email: owner, meeting_class: plan.meetingClass, hold_scope: 'candidate', candidate: { start, end } }, apiKey);
          if (hold && hold.status < 300 && hold.body?.hold_id) {
            stats.acked.holds.add(hold.body.hold_id);
            const conf = await keyed(stats, plan.bases, pick, `/v1/bookings/${hold.body.hold_id}/confirm`, { start, end }, apiKey);
            if (conf && conf.status < 300 && conf.body?.booking_id) {
              stats.acked.bookings.set(conf.body.booking_id, 'confirmed');
              stats.acked.confirms++;
              mine.push(conf.body.booking_id);
            }
          }
        } else {
          const res = await keyed(stats, plan.bases, pick, '/v1/bookings', { owner_email: owner, meeting_class: plan.meetingClass, start, end }, apiKey);
          if (res && res.status < 300 && res.body?.booking_id) {
            stats.acked.bookings.set(res.body.booking_id, 'confirmed');
            mine.push(res.body.booking_id);
          }
        }
        await sleep(plan.paceMs);
      }
    }),
  );
}

/**
 * The unavailability window of a fault at `at`: the longest time a client went without a success.
 * For each success answered after `at` (up to `until`), the time from the last success answered
 * before its request was sent to its answer; the window is the longest of these. It does not need
 * to know when the outage began (a planned switchover takes effect a while after the command:
 * Patroni checks the candidate and runs a CHECKPOINT first), a request held through the outage
 * (waiting in PgBouncer's queue) counts with its whole wait, and a request already past its
 * commit when the fault came spans only its own latency, so it cannot hide the outage.
 */
export function windowAround(successes: [number, number][], at: number, until = Infinity): number | null {
  const answered = successes.map(([, a]) => a).sort((x, y) => x - y);
  const lastBefore = (t: number) => {
    let lo = 0;
    let hi = answered.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (answered[mid] <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo ? answered[lo - 1] : null;
  };
  let longest: number | null = null;
  for (const [sent, done] of successes) {
    if (done <= at || done > until) continue;
    const before = lastBefore(sent);
    if (before !== null && (longest === null || done - before > longest)) longest = done - before;
  }
  return longest;
}
