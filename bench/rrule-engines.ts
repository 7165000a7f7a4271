/**
 * Hard-block recurrence: the hand-written, window-bounded expansion of
 * server/domain/scheduling/rrule.ts against ical.js (the engine that expands
 * provider events), on the 100 heaviest hard blocks the limits allow
 * (bench/abuse/scenarios.ts hundredRules), over a 72 h and a 31-day window a
 * month ahead. ical.js's RecurIterator starts at DTSTART and walks every
 * occurrence up to the window; rrule.ts jumps to the window. Prints the
 * median and the worst of the runs per engine and window; asserts nothing.
 *   npx tsx bench/rrule-engines.ts [--runs 5]
 */
import ICAL from 'ical.js';
import { expandRRuleBlock, withCountCheckpoint } from '@/server/domain/scheduling/rrule';
import { hundredRules } from './abuse/scenarios';

type Block = { rrule: string; dtstart: string; duration_minutes: number };
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
const DAY = 86_400_000;
const from = Date.parse('2026-12-07T00:00:00Z');
const windows = [
  { name: '72 h', from, to: from + 3 * DAY },
  { name: '31 days', from, to: from + 31 * DAY },
];
const horizonDay = Math.floor(from / DAY) + 800;
const blocks = (hundredRules() as Block[]).map((b) => withCountCheckpoint(b, horizonDay));

function withRrule(w: { from: number; to: number }): number {
  let n = 0;
  for (const b of blocks) n += expandRRuleBlock(b, 'UTC', w.from, w.to).length;
  return n;
}

/** ical.js: the rule's iterator from DTSTART (UTC here; zones only add conversion cost), occurrences in the window. */
function withIcal(w: { from: number; to: number }, deadline: number): number | null {
  let n = 0;
  for (const b of blocks) {
    const recur = ICAL.Recur.fromString(b.rrule);
    const start = ICAL.Time.fromDateTimeString(`${b.dtstart}:00`);
    start.zone = ICAL.Timezone.utcTimezone;
    const it = recur.iterator(start);
    const durMs = b.duration_minutes * 60_000;
    for (let t = it.next(); t; t = it.next()) {
      const s = t.toUnixTime() * 1000;
      if (s >= w.to) break;
      if (s + durMs > w.from) n++;
      if (performance.now() > deadline) return null;
    }
  }
  return n;
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], worst: s[s.length - 1] };
};

for (const w of windows) {
  const r: number[] = [];
  const i: number[] = [];
  let count = 0;
  let icalCount: number | null = 0;
  for (let k = 0; k < RUNS; k++) {
    let t = performance.now();
    count = withRrule(w);
    r.push(performance.now() - t);
    t = performance.now();
    icalCount = withIcal(w, t + 60_000);
    i.push(performance.now() - t);
    if (icalCount === null) break;
  }
  const a = stats(r);
  const b = stats(i);
  console.log(
    `${w.name}: rrule.ts median ${a.median.toFixed(2)} ms, worst ${a.worst.toFixed(2)} ms (${count} occurrences) | ical.js median ${b.median.toFixed(0)} ms, worst ${b.worst.toFixed(0)} ms (${icalCount ?? 'stopped after 60 s'} occurrences)`,
  );
}
