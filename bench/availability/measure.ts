/**
 * In-process measurements of bench/availability.ts (on PostgreSQL or PGlite): searchAvailability
 * timed whole, and split into its phases (look-ups, claim load, pure slot search).
 */
import { performance } from 'node:perf_hooks';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { claims } from '@/db/schema';
import { loadClaims, loadTarget, ownerRules, requestPolicy, searchAvailability } from '@/server/domain/claims';
import { searchSlots } from '@/server/domain/scheduling';
import { busyBetween, cpuMark, fmt, log, selfCpuMs, stats, waitIdle, type Stats } from '../lib/measure';
import { DAY_MARGIN, iterationsOf, searchInput, WAIT_IDLE_S, warmupOf, WINDOW_NAMES, WINDOWS, type WindowName } from './options';
import type { Seeded } from './seed';

/** One row of the results table. */
export type Row = {
  busy: number | null;
  /** CPU ms per operation of the process doing the work (see CPU_NOTE in report.ts). */
  cpu: number | null;
  mode: string;
  owner: string;
  window: WindowName;
  inWindow: number;
  loaded: number;
  slots: string;
  stats: Stats;
};

/** One row of the phase table: look-ups (loadTarget), claim load (loadClaims), pure search (searchSlots), their sum. */
export type PhaseRow = { mode: string; owner: string; window: WindowName; target: Stats; load: Stats; search: Stats; total: Stats };

/** Claims overlapping the window, and claims the search loads (window +-26 h), per `owner/window`. */
export type Counts = Map<string, { inWindow: number; loaded: number }>;

/** Pauses for the host to go quiet when --wait-idle=S asks for it. */
export const settle = () => waitIdle(WAIT_IDLE_S);

/** Runs fn `warmup` times, then `n` timed times. `cpu` is this process's CPU ms per timed call; `cpuOf` measures another process instead. */
export async function timeLoop(n: number, warmup: number, fn: () => Promise<unknown>, cpuOf: () => number | null = selfCpuMs): Promise<{ samples: number[]; cpu: number | null }> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  const c0 = cpuOf();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  const c1 = cpuOf();
  return { samples: out, cpu: c0 === null || c1 === null ? null : (c1 - c0) / n };
}

export function slotSummary(slots: { preempts: boolean }[]): string {
  return `${slots.length} (${slots.filter((s) => s.preempts).length} pre)`;
}

/** Slots (epoch ms or ISO strings) in one comparable string. */
export function slotKey(slots: { start: number | string; end: number | string; preempts: boolean }[]): string {
  return slots.map((s) => `${new Date(s.start).toISOString()}/${new Date(s.end).toISOString()}${s.preempts ? '/pre' : ''}`).join(',');
}

async function windowCounts(db: Db, ownerId: string, w: WindowName): Promise<{ inWindow: number; loaded: number }> {
  const { start, end } = WINDOWS[w];
  const [{ n }] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(claims)
    .where(
      and(
        eq(claims.ownerId, ownerId),
        inArray(claims.status, ['active', 'confirmed']),
        sql`tstzrange(${claims.startAt}, ${claims.endAt}, '[)') && tstzrange(${new Date(start).toISOString()}::timestamptz, ${new Date(end).toISOString()}::timestamptz, '[)')`,
      ),
    );
  const loaded = await loadClaims(db, ownerId, new Date(start - DAY_MARGIN), new Date(end + DAY_MARGIN), new Date());
  return { inWindow: n, loaded: loaded.length };
}

export async function countsFor(db: Db, seeded: Seeded): Promise<Counts> {
  const counts: Counts = new Map();
  for (const o of seeded.owners) for (const w of WINDOW_NAMES) counts.set(`${o.profile.name}/${w}`, await windowCounts(db, o.ownerId, w));
  return counts;
}

/** searchAvailability called directly, per owner and window. */
export async function benchInProcess(db: Db, mode: string, seeded: Seeded, counts: Counts): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { profile } of seeded.owners) {
    for (const w of WINDOW_NAMES) {
      const inp = searchInput(profile, w);
      let last: Awaited<ReturnType<typeof searchAvailability>> | null = null;
      await settle();
      const mark = cpuMark();
      const { samples, cpu } = await timeLoop(iterationsOf(w), warmupOf(w), async () => {
        last = await searchAvailability(db, seeded.actor, inp, new Date());
      });
      const c = counts.get(`${profile.name}/${w}`)!;
      rows.push({ busy: busyBetween(mark, cpuMark()), cpu, mode, owner: profile.name, window: w, ...c, slots: slotSummary(last!.slots), stats: stats(samples) });
      log(`  ${mode} ${profile.name} ${w}: p50 ${fmt(rows.at(-1)!.stats.p50)} p99 ${fmt(rows.at(-1)!.stats.p99)} ms`);
    }
  }
  return rows;
}

/**
 * The parts of searchAvailability timed on their own: look-ups (meeting class, owner and calendar in
 * one statement, loadTarget), claim load (loadClaims over the window +-26 h), pure slot search
 * (searchSlots). The first warm-up round checks that the parts give the slots searchAvailability gives.
 */
export async function benchPhases(db: Db, mode: string, seeded: Seeded): Promise<PhaseRow[]> {
  const out: PhaseRow[] = [];
  for (const { profile } of seeded.owners) {
    for (const w of WINDOW_NAMES) {
      const inp = searchInput(profile, w);
      const t: number[] = [], l: number[] = [], s: number[] = [], tot: number[] = [];
      const n = Math.max(20, Math.round(iterationsOf(w) / 3));
      await settle();
      for (let i = -5; i < n; i++) {
        const now = new Date();
        const from = new Date(inp.window.start.getTime() - DAY_MARGIN);
        const to = new Date(inp.window.end.getTime() + DAY_MARGIN);
        const a = performance.now();
        const target = await loadTarget(db, seeded.actor.customerId, inp, false);
        const b = performance.now();
        const loaded = await loadClaims(db, target.owner.id, from, to, now);
        const c = performance.now();
        const result = searchSlots({
          rules: ownerRules(target.owner),
          claims: loaded,
          now: now.getTime(),
          durationMinutes: inp.durationMinutes,
          request: requestPolicy(seeded.actor, target),
          window: { start: inp.window.start.getTime(), end: inp.window.end.getTime() },
          stepMinutes: inp.stepMinutes,
          maxResults: inp.maxResults,
        });
        const d = performance.now();
        if (i === -5) {
          const whole = await searchAvailability(db, seeded.actor, inp, now);
          if (slotKey(result.slots) !== slotKey(whole.slots)) throw new Error(`phase split and searchAvailability disagree for ${profile.name} ${w}`);
        }
        if (i < 0) continue;
        t.push(b - a);
        l.push(c - b);
        s.push(d - c);
        tot.push(d - a);
      }
      out.push({ mode, owner: profile.name, window: w, target: stats(t), load: stats(l), search: stats(s), total: stats(tot) });
    }
  }
  return out;
}
