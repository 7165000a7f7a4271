/**
 * HTTP measurement of bench/availability.ts: POST /v1/availability/search against the production
 * server (a staged copy of the checkout by default, built with `next build`), concurrency 1.
 */
import type { Db } from '@/db/client';
import { mintApiKey } from '@/server/domain/agentService';
import { searchAvailability } from '@/server/domain/claims';
import { busyBetween, cpuMark, fmt, log, processCpuMs, stats } from '../lib/measure';
import { prepareApp as prepareBuild } from '../lib/nextServer';
import { IN_PLACE, iterationsOf, KEY_BUDGET, NO_BUILD, REUSE_BUILD, ROOT, searchInput, STAGE_DIR, warmupOf, WINDOW_NAMES } from './options';
import { settle, slotKey, slotSummary, timeLoop, type Counts, type Row } from './measure';
import type { Seeded } from './seed';

/** The directory holding the production build to serve: a staged copy (default) or this checkout. */
export function prepareApp(): string {
  return prepareBuild(ROOT, STAGE_DIR, { reuse: REUSE_BUILD, inPlace: IN_PLACE, noBuild: NO_BUILD }).dir;
}

/**
 * POST /v1/availability/search per owner and window; CPU is the server process's. The first response
 * of each scenario is checked to carry the slots searchAvailability gives in-process.
 */
export async function benchHttp(db: Db, baseUrl: string, serverPid: number | undefined, seeded: Seeded, counts: Counts): Promise<Row[]> {
  // One key per KEY_BUDGET requests keeps every key under the per-key rate limit.
  let total = 0;
  for (const w of WINDOW_NAMES) total += seeded.owners.length * (iterationsOf(w) + warmupOf(w) + 1);
  const keys: string[] = [];
  for (let i = 0; i < Math.ceil(total / KEY_BUDGET) + 1; i++) {
    keys.push((await mintApiKey(db, seeded.customerId, null, seeded.agentId, `bench-http-${i}`, new Date())).api_key);
  }
  let sent = 0;
  const post = async (body: string) => {
    const key = keys[Math.floor(sent++ / KEY_BUDGET)];
    const res = await fetch(`${baseUrl}/v1/availability/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 500)}`);
    return text;
  };
  const rows: Row[] = [];
  for (const { profile } of seeded.owners) {
    for (const w of WINDOW_NAMES) {
      const inp = searchInput(profile, w);
      const body = JSON.stringify({
        owner_email: inp.ownerEmail,
        meeting_class: inp.meetingClass,
        duration_minutes: inp.durationMinutes,
        window: { start: inp.window.start.toISOString(), end: inp.window.end.toISOString() },
        slot_step_minutes: inp.stepMinutes,
        max_results: inp.maxResults,
      });
      const first = JSON.parse(await post(body)) as { slots: { start: string; end: string; preempts: boolean }[] };
      const inProcess = await searchAvailability(db, seeded.actor, inp, new Date());
      if (slotKey(first.slots) !== slotKey(inProcess.slots)) throw new Error(`HTTP and in-process search disagree for ${profile.name} ${w}`);
      await settle();
      const mark = cpuMark();
      const { samples, cpu } = await timeLoop(iterationsOf(w), warmupOf(w), () => post(body), () => processCpuMs(serverPid));
      rows.push({ busy: busyBetween(mark, cpuMark()), cpu, mode: 'HTTP (PostgreSQL)', owner: profile.name, window: w, ...counts.get(`${profile.name}/${w}`)!, slots: slotSummary(first.slots), stats: stats(samples) });
      log(`  HTTP ${profile.name} ${w}: p50 ${fmt(rows.at(-1)!.stats.p50)} p99 ${fmt(rows.at(-1)!.stats.p99)} ms`);
    }
  }
  return rows;
}
