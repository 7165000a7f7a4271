/**
 * What one measurement of the booking benchmark yields (a table row), and the CPU sampler the
 * in-process, pgbench and HTTP measurements share.
 */
import { performance } from 'node:perf_hooks';
import { busyBetween, cpuMark, postgresCpuByPid, processCpuMs, selfCpuMs, type CpuMark, type Stats } from '../lib/measure';

export type Row = {
  section: 'tx' | 'http' | 'pglite';
  mode: string;
  idem: string;
  seconds: number;
  ok: number;
  perSecond: number;
  lat: Stats | { p50: number; p99: number };
  errors: string;
  clientCpu: number | null; // ms per operation of the client process (bench, pgbench or server)
  pgCpu: number | null; // ms per operation of all postgres processes
  busy: number | null;
  load: string;
  note?: string;
};

export type CpuWindow = { seconds: number; busy: number | null; pgMsPerS: number; procMsPerS: number | null };

/**
 * Polls CPU counters every 250 ms so rates can be computed over a window even when processes exit
 * at its end: the host and client process counters are read at the window's start (mark(), or the
 * first poll after `from`) and at its last poll; each postgres process counts from its value at the
 * start (0 when it started later) to the last value seen while it lived.
 */
export function cpuSampler(pid?: number) {
  type S = { t: number; host: CpuMark; proc: number | null };
  const take = (): S => ({ t: performance.now(), host: cpuMark(), proc: pid ? processCpuMs(pid) : selfCpuMs() });
  let start: S | null = null;
  let last: S | null = null;
  let pgStart: Map<number, number> | null = null;
  const pgSeen = new Map<number, number>();
  let from = Infinity;
  const poll = (force = false) => {
    const s = take();
    if (pid && s.proc === null) return; // the client process has exited
    const pg = postgresCpuByPid();
    if (!start && (force || s.t >= from)) {
      start = s;
      pgStart = pg;
    }
    if (start) {
      last = s;
      for (const [p, ms] of pg) pgSeen.set(p, ms);
    }
  };
  const timer = setInterval(() => poll(), 250);
  return {
    /** The window starts at the first poll at or after `t` (performance.now() time). */
    startAt(t: number) {
      from = t;
    },
    /** The window starts now (in-process: timers may starve while PGlite runs). */
    mark() {
      if (!start) poll(true);
    },
    stop(): CpuWindow {
      clearInterval(timer);
      if (!pid) poll();
      const a = start as S | null;
      const b = last as S | null;
      if (!a || !b || b.t <= a.t) return { seconds: 0, busy: null, pgMsPerS: NaN, procMsPerS: null };
      const seconds = (b.t - a.t) / 1000;
      let pg = 0;
      for (const [p, ms] of pgSeen) pg += ms - (pgStart!.get(p) ?? 0);
      return {
        seconds,
        busy: busyBetween(a.host, b.host),
        pgMsPerS: pg / seconds,
        procMsPerS: a.proc !== null && b.proc !== null ? (b.proc - a.proc) / seconds : null,
      };
    },
  };
}
