/**
 * Output of bench/availability.ts: the results and phase tables on stdout and, in a full run (or with
 * --docs), the generated section of docs/benchmarks.md.
 */
import os from 'node:os';
import path from 'node:path';
import { fmt, loadAvg, log, machineLine, markdownTable, textTable, writeMarkedSection, type Stats } from '../lib/measure';
import { ARGV, DOC, PROFILES, QUICK, ROOT, TARGET_P99, WINDOWS, YEAR_DAYS, yearStart } from './options';
import type { PhaseRow, Row } from './measure';

export type Report = {
  rows: Row[];
  phases: PhaseRow[];
  pgVersion: string | null;
  pgliteVersion: string;
  /** Extra lines for the docs section (how the HTTP server ran). */
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

/** Sorts the rows, prints the tables and, when `writeDocs`, replaces the section in docs/benchmarks.md. */
export function report(rep: Report, writeDocs: boolean): void {
  sortReport(rep);
  const { rows, phases } = rep;
  const info = machineInfo(rep.pgVersion, rep.pgliteVersion);
  const missed = missedOf(rows);
  console.log('\nAvailability search: duration 30 min, step 15 min, max_results 500 (times in ms)');
  console.log(info.map((l) => l.slice(2)).join('\n'));
  console.log('');
  console.log(textTable(RESULT_HEADER, rows.map(resultCells), LEFT_COLS));
  console.log(CPU_NOTE);
  console.log('host busy: share of all cores busy while measuring, this process and PostgreSQL included (a concurrency-1 run alone uses ~1 core)');
  if (phases.length) {
    console.log('\nPhases in-process (ms, p50 / p99): look-ups = loadTarget (meeting class + owner + calendar in one statement);');
    console.log('claim load = loadClaims (window +-26 h); pure search = searchSlots; sum = the three (checked to give the slots of searchAvailability)');
    console.log(textTable(PHASE_HEADER, phases.map(phaseCells), LEFT_COLS));
  }
  console.log(`\n${missed.length === 0 ? 'All p99 targets met.' : `${missed.length} of ${rows.length} rows miss their p99 target.`}`);

  if (writeDocs) {
    writeMarkedSection(DOC, 'availability', 'bench/availability.ts', docsSection(rep, info));
    log(`\nwrote ${path.relative(ROOT, DOC)}`);
  }
}

function docsSection(rep: Report, info: string[]): string {
  const { rows, phases } = rep;
  const missed = missedOf(rows);
  return [
    '## Availability search',
    '',
    'Generated by `npx tsx bench/availability.ts` (PostgreSQL in `BENCH_DATABASE_URL`, default',
    '`postgres://postgres@127.0.0.1:5432/bench`, created if missing; rows are deleted at the end).',
    'Search: duration 30 min, 15 min step, `max_results` 500 (the whole window is scanned), meeting class',
    'priority 80 with `preempt_lower` and an agent holding `preempt`, so busy time held by lower-priority,',
    'non-sacred bookings still yields (preempting) slots. Targets: 72 h p99 <= 25 ms, 31 days p99 <= 100 ms.',
    '',
    ...info,
    `- owners (${rep.seededSummary}); 20k* has 20,000 bookings in the year but the 2k owner's bookings on the days around the windows`,
    ...rep.notes.map((n) => `- ${n}`),
    '',
    markdownTable(RESULT_HEADER, rows.map(resultCells), LEFT_COLS),
    '',
    CPU_NOTE,
    '',
    '"host busy": share of all cores busy while the row was measured, this benchmark and PostgreSQL included',
    `(a concurrency-1 run alone keeps about one of the ${os.cpus().length} cores busy; more means other work on the machine).`,
    '',
    ...(phases.length
      ? [
          'Phases, in-process (ms, p50 / p99): look-ups = `loadTarget`, the meeting class, owner and calendar in one',
          'statement; claim load = `loadClaims` over the window +-26 h; pure search = `searchSlots` on the loaded claims;',
          'sum = the three together (the first round of every scenario is checked to give the same slots as',
          '`searchAvailability`).',
          '',
          markdownTable(PHASE_HEADER, phases.map(phaseCells), LEFT_COLS),
          '',
        ]
      : []),
    missed.length === 0 ? 'All p99 targets met in this run.' : `${missed.length} of ${rows.length} rows miss their p99 target in this run.`,
  ].join('\n');
}
