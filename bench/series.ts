/**
 * Recurring series benchmark (issue 40 acceptance; figures in docs/benchmarks.md "Recurring series").
 *
 *   npx tsx bench/series.ts                 200 single bookings and 40 series per database (writes its section)
 *   npx tsx bench/series.ts --quick         40 singles and 8 series (no docs unless --docs)
 *
 * The production build (--app-dir, default the checkout) on PostgreSQL and on the embedded
 * database (--db=postgres|embedded|both). One client, one request at a time, over keep-alive
 * HTTP: single bookings (POST /v1/bookings, 30 minutes) and 52-occurrence weekly series
 * (the same with `recurrence: FREQ=WEEKLY;COUNT=52`, all or nothing) interleaved (--singles
 * singles, then one series, and again), so both see the same load on a shared host. Each request
 * books free time: the singles on one owner, one a day apart; series n on another owner at
 * n x 45 minutes into the week (so its 52 weeks never meet another series'). Target: the series'
 * p99 <= 5 x the single booking's p99.
 * Options: --count=N (singles, default 200) --series=N (default 40) --db=... --app-dir=DIR --quick --docs/--no-docs
 */
import { performance } from 'node:perf_hooks';
import { writeBenchSection, type Figure } from './lib/benchDoc';
import { api, benchDbs, daysAhead, iso, newOwner, startClaimServer, type BenchDb } from './lib/claimBench';
import { fmt, loadAvg, log, machineLine, markdownTable, stats, type Stats } from './lib/measure';
import { argv, flag, opt } from './booking/options';

const QUICK = flag('quick');
const SINGLES = Number(opt('count') ?? (QUICK ? 40 : 200));
const SERIES = Number(opt('series') ?? (QUICK ? 8 : 40));
const WRITE_DOCS = flag('docs') || (!QUICK && !flag('no-docs'));
const COUNT = 52;
const HALF_HOUR = 30 * 60_000;

type Result = { db: BenchDb; dbLabel: string; single: Stats; series: Stats; occurrences: number; load: string };

async function run(db: BenchDb): Promise<Result> {
  const load0 = loadAvg();
  // The booking limit is 120 a minute per key: enough keys that the run never waits for it.
  const srv = await startClaimServer(db, Math.ceil((SINGLES + SERIES) / 60) + 1);
  try {
    const singlesOwner = await newOwner(srv, 'singles');
    const seriesOwner = await newOwner(srv, 'series');
    const base = daysAhead(21) + 8 * 3_600_000;
    let k = 0;
    const key = () => srv.keys[k++ % srv.keys.length];
    const single: number[] = [];
    const series: number[] = [];
    let occurrences = 0;
    const book = async (owner: string, start: number, recurrence?: string) => {
      const body = { owner_email: owner, meeting_class: srv.className, start: iso(start), end: iso(start + HALF_HOUR), ...(recurrence ? { recurrence } : {}) };
      const t0 = performance.now();
      const r = await api(srv, key(), 'POST', '/v1/bookings', body);
      const ms = performance.now() - t0;
      if (r.status !== 201) throw new Error(`${recurrence ? 'series' : 'booking'}: ${r.status} ${JSON.stringify(r.body).slice(0, 400)}`);
      return { ms, body: r.body as { series?: { bookings: unknown[] } } };
    };
    // Warm-up (not measured): the first requests compile the routes' code paths.
    for (let i = 0; i < 3; i++) await book(singlesOwner, base - (i + 1) * 86_400_000);
    await book(await newOwner(srv, 'warm-up'), base, `FREQ=WEEKLY;COUNT=${COUNT}`);
    const perSeries = Math.max(1, Math.round(SINGLES / SERIES));
    let s = 0;
    let n = 0;
    while (s < SINGLES || n < SERIES) {
      for (let i = 0; i < perSeries && s < SINGLES; i++, s++) single.push((await book(singlesOwner, base + s * 86_400_000)).ms);
      if (n < SERIES) {
        const r = await book(seriesOwner, base + n * 45 * 60_000, `FREQ=WEEKLY;COUNT=${COUNT}`);
        occurrences += r.body.series?.bookings.length ?? 0;
        series.push(r.ms);
        n++;
      }
    }
    log(`  ${db}: ${single.length} singles, ${series.length} series (${occurrences} occurrences)`);
    return { db, dbLabel: srv.dbLabel, single: stats(single), series: stats(series), occurrences, load: `${load0} at the start, ${loadAvg()} at the end` };
  } finally {
    await srv.stop();
  }
}

async function main() {
  const results: Result[] = [];
  for (const db of benchDbs()) results.push(await run(db));
  const rows = results.flatMap((r) => [
    [r.dbLabel, 'single booking', String(r.single.n), `${fmt(r.single.p50)} / ${fmt(r.single.p99)} / ${fmt(r.single.max)}`],
    [r.dbLabel, `weekly series of ${COUNT}`, String(r.series.n), `${fmt(r.series.p50)} / ${fmt(r.series.p99)} / ${fmt(r.series.max)}`],
  ]);
  const table = markdownTable(['Database', 'Request', 'Requests', 'Decided in p50 / p99 / max (ms)'], rows, 2);
  console.log(`\n${table}\n`);
  const figures: Figure[] = results.map((r) => {
    const ratio = r.series.p99 / r.single.p99;
    return {
      figure: `${COUNT}-occurrence weekly series p99 vs a single booking's p99, ${r.db === 'postgres' ? 'PostgreSQL' : 'embedded database'}`,
      target: '<= 5x',
      latest: `${ratio.toFixed(2)}x (${fmt(r.series.p99)} ms vs ${fmt(r.single.p99)} ms; p50 ${fmt(r.series.p50)} vs ${fmt(r.single.p50)} ms)`,
      met: ratio <= 5,
    };
  });
  if (WRITE_DOCS) {
    writeBenchSection('series', {
      measures: `The time to decide a ${COUNT}-occurrence weekly series (\`POST /v1/bookings\` with \`recurrence: FREQ=WEEKLY;COUNT=${COUNT}\`, all or nothing: every occurrence arbitrated and committed in one transaction) against a single 30-minute booking, over HTTP against the production build, one request at a time, interleaved so both see the same load; every request books free time. Issue 40's acceptance: the series within 5x a single booking's p99.`,
      command: 'npx tsx bench/series.ts',
      run: `npx tsx bench/series.ts${argv.length ? ' ' + argv.join(' ') : ''}`,
      host: `${machineLine()}; ${results.map((r) => `${r.dbLabel}: load average ${r.load}`).join('; ')}`,
      figures,
      notes: [
        table,
        ...(SINGLES < 200 || SERIES < 40 ? [`A short run (${SINGLES} singles, ${SERIES} series per database; a full run takes 200 and 40) on a host shared with other engineers' builds and tests: it proves the script, the figures are noisy; re-run on a quiet host.`] : []),
      ],
    });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
