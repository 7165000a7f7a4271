/**
 * Measurements of bench/abuse.ts against a running server: one scenario's request repeated
 * (wall time and the server process's CPU per request), and GET /api/health probed at a fixed
 * period, idle and while the scenario's request runs at a fixed rate.
 */
import { performance } from 'node:perf_hooks';
import { processCpuMs, stats, type Stats } from '../lib/measure';
import type { Scenario } from './scenarios';

export type Client = { baseUrl: string; keys: string[]; pid: number | undefined };

let sent = 0;
/** A fresh client address per request (the server runs with TRUST_PROXY=1): per-IP limits stay out of the figures. */
const nextIp = () => `198.18.${Math.floor(sent / 250) % 256}.${(sent % 250) + 1}`;
/** Requests per API key before the next one is used (the tightest per-key limit is 120 a minute). */
const PER_KEY = 100;

export async function send(c: Client, s: Scenario): Promise<{ status: number; ms: number }> {
  const headers: Record<string, string> = { 'x-forwarded-for': nextIp() };
  if (!s.anonymous) headers.authorization = `Bearer ${c.keys[Math.floor(sent / PER_KEY) % c.keys.length]}`;
  if (s.body !== undefined) headers['content-type'] = 'application/json';
  sent++;
  const t0 = performance.now();
  const res = await fetch(c.baseUrl + s.path, { method: s.method, headers, body: s.body === undefined ? undefined : JSON.stringify(s.body) });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (!s.expect.includes(res.status)) throw new Error(`${s.name}: expected ${s.expect.join('/')}, got ${res.status}: ${text.slice(0, 400)}`);
  return { status: res.status, ms };
}

/** `n` requests one after the other (after `warmup`): wall ms per request and server CPU ms per request. */
export async function repeat(c: Client, s: Scenario, n: number, warmup: number): Promise<{ wall: Stats; cpu: number | null; statuses: string }> {
  for (let i = 0; i < warmup; i++) await send(c, s);
  const seen = new Map<number, number>();
  const samples: number[] = [];
  const c0 = processCpuMs(c.pid);
  for (let i = 0; i < n; i++) {
    const r = await send(c, s);
    samples.push(r.ms);
    seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
  }
  const c1 = processCpuMs(c.pid);
  return {
    wall: stats(samples),
    cpu: c0 === null || c1 === null ? null : (c1 - c0) / n,
    statuses: [...seen].map(([st, k]) => (seen.size > 1 ? `${st}x${k}` : String(st))).join(' '),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type HealthOpts = { durationMs: number; periodMs: number; ratePerS: number; segmentMs: number };

/**
 * GET /api/health one at a time every `periodMs` for 2 x `durationMs`, in alternating segments of
 * `segmentMs`: idle ones, and busy ones in which `s` is sent `ratePerS` times a second (each
 * waiting for the previous). Interleaving keeps the drift of a shared machine's load out of the
 * comparison. A sample of an idle segment that overlapped a request still in flight is left out.
 */
export async function healthUnder(c: Client, s: Scenario, o: HealthOpts): Promise<{ idle: Stats; busy: Stats; sentDuring: number }> {
  const t0 = performance.now();
  const end = t0 + 2 * o.durationMs;
  const busyAt = (t: number) => Math.floor((t - t0) / o.segmentMs) % 2 === 1;
  let inFlight = 0;
  let started = 0;
  let sentDuring = 0;
  const attacker = (async () => {
    let next = performance.now();
    while (performance.now() < end) {
      if (!busyAt(performance.now())) {
        await sleep(5);
        next = performance.now();
        continue;
      }
      inFlight++;
      started++;
      try {
        await send(c, s);
      } finally {
        inFlight--;
      }
      sentDuring++;
      next += 1000 / o.ratePerS;
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      else next = performance.now();
    }
  })();
  const idle: number[] = [];
  const busy: number[] = [];
  let next = performance.now();
  while (performance.now() < end) {
    const at = performance.now();
    const before = started;
    const overlapped = inFlight > 0;
    const res = await fetch(`${c.baseUrl}/api/health`);
    await res.text();
    const ms = performance.now() - at;
    if (res.status !== 200) throw new Error(`/api/health answered ${res.status}`);
    if (busyAt(at)) busy.push(ms);
    else if (!overlapped && inFlight === 0 && started === before) idle.push(ms);
    next += o.periodMs;
    const wait = next - performance.now();
    if (wait > 0) await sleep(wait);
    else next = performance.now();
  }
  await attacker;
  return { idle: stats(idle), busy: stats(busy), sentDuring };
}
