/**
 * Output of bench/availability.ts: the results and phase tables on stdout and, in a full run (or with
 * --docs), its section of docs/benchmarks.md ("Availability search": the worst owner's p99 per mode and
 * window against its target).
 */
import { writeBenchSection, type BenchRun, type Figure } from '../lib/benchDoc';
import { fmt, loadAvg, machineLine, textTable, type Stats } from '../lib/measure';
import { ARGV, PROFILES, QUICK, RUN_HTTP, TARGET_P99, WINDOWS, YEAR_DAYS, yearStart } from './options';
import type { PhaseRow, Row } from './measure';
import { BUFFER_HEADER, BUFFER_NOTE, bufferCells, bufferFigures, type BufferRow } from './buffers';

export type Report = {
  rows: Row[];
  phases: PhaseRow[];
  /** The buffered comparison (availability/buffers.ts). */
  buffers: BufferRow[];
  pgVersion: string | null;
  pgliteVersion: string;
  /** Extra lines for the output (how the HTTP server ran). */
  notes: string[];
  /** Bookings per owner, e.g. "2k: 2000 bookings, ..." (PostgreSQL run only). */
  seededSummary: string;
};

const LEFT_COLS = 2; // mode and owner are left-aligned

const CPU_NOTE =
  'CPU ms/op: CPU time per search of the process doing the work: the bench process for in-process rows (PostgreSQL\'s own CPU not included; PGlite runs inside the process), the server process for HTTP rows; unlike wall times it hardly moves when other work shares the cores.';
const RESULT_HEADER = ['mode', 'owner', 'window', 'claims in window', 'claims loaded', 'slots (preempting)', 'iter', 'mean ms', 'p50 ms', 'p99 ms', 'min ms', 'max ms', 'p99 target', 'CPU ms/op', 'host busy'];
function resultCells(r: Row): string[] {
  const target = TARGET_P99[r.window];
  return [r.mode, r.owner, r.window, String(r.inWindow), String(r.loaded), r.slots, String(r.stats.n), fmt(r.stats.mean), fmt(r.stats.p50), fmt(r.stats.p99), fmt(r.stats.min), fmt(r.stats.max), `${r.stats.p99 <= target ? 'ok' : 'MISSED'} (<= ${target})`, r.cpu === null ? 'n/a' : fmt(r.cpu), r.busy === null ? 'n/a' : `${Math.round(r.busy * 100)} %`];
}
const PHASE_HEADER = ['mode', 'owner', 'window', 'look-ups', 'claim load', 'pure search', 'sum'];
function phaseCells(p: PhaseRow): string[] {
  const pair = (s: Stats) => `${fmt(s.p50)} / ${fmt(s.p99)}`;
  return [p.mode, p.owner, p.window, pair(p.target), pair(p.load), pair(p.search), pair(p.total)];
}

function machineInfo(pgVersion: string | null, pgliteVersion: string): string[] {
  return [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${machineLine()}, load average at the end ${loadAvg()}`,
    `- Node ${process.version}; PostgreSQL ${pgVersion ?? 'n/a'}; PGlite ${pgliteVersion} (in memory)`,
    `- run: \`npx tsx bench/availability.ts${ARGV.length ? ' ' + ARGV.join(' ') : ''}\`${QUICK ? ' (quick: fewer iterations than the targets ask for)' : ''}`,
    `- windows (Europe/Berlin): 72h ${new Date(WINDOWS['72h'].start).toISOString()} -> ${new Date(WINDOWS['72h'].end).toISOString()}; 31d -> ${new Date(WINDOWS['31d'].end).toISOString()}; bookings from ${yearStart.toString()} for ${YEAR_DAYS} days`,
  ];
}

/** Results by mode (PostgreSQL, PGlite, HTTP), then window, then owner; phases PostgreSQL first, 72h first. */
function sortReport(rep: Report): void {
  const order = (r: Row) => ['in-process PostgreSQL', 'in-process PGlite', 'HTTP (PostgreSQL)'].indexOf(r.mode) * 10 + (r.window === '72h' ? 0 : 5) + PROFILES.findIndex((p) => p.name === r.owner);
  rep.rows.sort((a, b) => order(a) - order(b));
  rep.phases.sort((a, b) => (a.mode === b.mode ? 0 : a.mode === 'PostgreSQL' ? -1 : 1) || (a.window === b.window ? 0 : a.window === '72h' ? -1 : 1));
}

const missedOf = (rows: Row[]) => rows.filter((r) => r.stats.p99 > TARGET_P99[r.window]);

/** Sorts the rows, prints the tables and, when `writeDocs`, replaces its section of docs/benchmarks.md. */
export function report(rep: Report, writeDocs: boolean): void {
  sortReport(rep);
  const { rows, phases } = rep;
  const info = machineInfo(rep.pgVersion, rep.pgliteVersion);
  const missed = missedOf(rows);
  console.log('\nAvailability search: duration 30 min, step 15 min, max_results 500 (times in ms)');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  if (rep.seededSummary) console.log(`owners: ${rep.seededSummary}; 20k* has 20,000 bookings in the year but the 2k owner's bookings on the days around the windows`);
  for (const n of rep.notes) console.log(n);
  console.log('');
  console.log(textTable(RESULT_HEADER, rows.map(resultCells), LEFT_COLS));
  console.log(CPU_NOTE);
  console.log('host busy: share of all cores busy while measuring, this process and PostgreSQL included (a concurrency-1 run alone uses ~1 core)');
  if (phases.length) {
    console.log('\nPhases in-process (ms, p50 / p99): look-ups = loadTarget (meeting class + owner + calendar in one statement);');
    console.log('claim load = loadClaims (window +-26 h); pure search = searchSlots; sum = the three (checked to give the slots of searchAvailability)');
    console.log(textTable(PHASE_HEADER, phases.map(phaseCells), LEFT_COLS));
  }
  if (rep.buffers.length) {
    console.log(`\n${BUFFER_NOTE}`);
    console.log(textTable(BUFFER_HEADER, rep.buffers.map(bufferCells), LEFT_COLS));
  }
  console.log(`\n${missed.length === 0 ? 'All p99 targets met.' : `${missed.length} of ${rows.length} rows miss their p99 target.`}`);

  if (writeDocs) writeBenchSection('availability', benchRun(rows, rep.buffers));
}

const MEASURES =
  "One owner's availability search (`POST /v1/availability/search`; `searchAvailability` in process): 30-minute meetings on a 15-minute step over a 72-hour and a 31-day window, `max_results` 500 (the whole window is walked), a meeting class that may preempt lower priorities; owners with 2,000 and 20,000 bookings in the year (and one with 20,000 whose bookings around the windows are the 2,000-owner's). In process on PostgreSQL and on PGlite, and over HTTP against the production build on PostgreSQL; one search at a time. Each figure is the worst owner's. Buffers: the same in-process search through the searching class and through its twin with buffers (15 minutes before, 10 after; docs/arbitration.md \"Buffers\"), timed in pairs of alternating order; the figure is the median over pairs of the buffered time over the unbuffered one.";
const MODE_LABELS: [Row['mode'], string][] = [
  ['in-process PostgreSQL', 'in process on PostgreSQL'],
  ['in-process PGlite', 'in process on PGlite'],
  ['HTTP (PostgreSQL)', 'HTTP on PostgreSQL'],
];

/** From this share of both cores busy while measuring (others' work included) the section says the p99s are the host's. */
const BUSY_NOTE_FROM = 0.9;
const busiest = (rows: Row[], buffers: BufferRow[]) => Math.max(0, ...[...rows, ...buffers].map((r) => r.busy ?? 0));

/** The section of docs/benchmarks.md: per mode and window, the worst owner's p99 against its target. */
function benchRun(rows: Row[], buffers: BufferRow[]): BenchRun {
  const worst = (rs: Row[], by: (r: Row) => number) => rs.reduce<Row | null>((w, r) => (w === null || by(r) > by(w) ? r : w), null);
  const figures: Figure[] = [];
  for (const w of ['72h', '31d'] as const) {
    for (const [mode, label] of MODE_LABELS) {
      const r = worst(rows.filter((x) => x.mode === mode && x.window === w), (x) => x.stats.p99);
      if (r) figures.push({ figure: `${w === '72h' ? '72 h' : '31-day'} search p99, ${label}`, target: `<= ${TARGET_P99[w]} ms`, latest: `${fmt(r.stats.p99)} ms`, met: r.stats.p99 <= TARGET_P99[w] });
    }
  }
  const cpu = (['72h', '31d'] as const).map((w) => worst(rows.filter((x) => x.mode === 'HTTP (PostgreSQL)' && x.window === w && x.cpu !== null), (x) => x.cpu!)?.cpu ?? null);
  figures.push(...bufferFigures(buffers));
  if (cpu.some((c) => c !== null)) figures.push({ figure: 'server CPU per HTTP search, 72 h / 31 days', latest: `${fmt(cpu[0])} / ${fmt(cpu[1])} ms` });
  return {
    measures: MEASURES,
    command: 'npx tsx bench/availability.ts',
    run: `npx tsx bench/availability.ts${ARGV.length ? ' ' + ARGV.join(' ') : ''}`,
    figures,
    notes: [
      ...(QUICK ? ['A quick run: fewer searches than the targets ask for, so each p99 is one of the slowest few.'] : []),
      ...(RUN_HTTP ? [] : ['No HTTP rows in this run (`--no-http`); the history has the last run with them.']),
      ...(busiest(rows, buffers) >= BUSY_NOTE_FROM
        ? [`Other work kept the host's cores busy during this run (up to ${Math.round(busiest(rows, buffers) * 100)} %, load average ${loadAvg()} at the end): its p99s are the host's more than the search's; the ratios of paired searches and the CPU per search hold.`]
        : []),
      "Wall times move with other work on the shared host; CPU per search hardly does. The run prints every owner's row and the split of an in-process search into look-ups, claim load and the pure search.",
      ...(buffers.length ? ['Buffers: the run also prints, per owner, the p50s and p99s of both searches, their CPU per search and the pure slot search (`searchSlots`) of both on the same loaded claims. A buffered search may offer more slots than the plain one: a buffer that runs into a meeting the class may preempt preempts it, and the hours it frees can let a slot pass the daily limit.'] : []),
    ],
  };
}
