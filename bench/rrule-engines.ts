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
import { expandRRuleRange, withCountCheckpoint } from '@/server/domain/scheduling/rrule';
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
  for (const b of blocks) n += expandRRuleRange(b, 'UTC', w.from, w.to).length; // the engine itself, not the decisions' memo
  return n;
}

/** ical.js: the rule's iterator from DTSTART (UTC here; zones only add conversion cost), occurrences in the window. */
function withIcal(w: { from: number; to: number }, deadline: number, list: Block[] = blocks): number | null {
  let n = 0;
  for (const b of list) {
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
  let count = 0;
  withRrule(w); // warm-up (parse memo, JIT)
  for (let k = 0; k < RUNS; k++) {
    const t = performance.now();
    count = withRrule(w);
    r.push(performance.now() - t);
  }
  const a = stats(r);
  console.log(`${w.name}, rrule.ts, all 100 blocks: median ${a.median.toFixed(2)} ms, worst ${a.worst.toFixed(2)} ms (${count} occurrences)`);
}

// ical.js: one block of each kind (the 100 are 40 + 30 + 20 + 10 of these), each given at most 20 s.
const kinds = [
  { name: 'DAILY from 1900', index: 0, of: 40 },
  { name: 'WEEKLY all days from 1950', index: 40, of: 30 },
  { name: 'MONTHLY 10 days from 2000', index: 70, of: 20 },
  { name: 'MONTHLY COUNT=10000 from 1900', index: 90, of: 10 },
];
for (const w of windows) {
  let total = 0;
  const parts: string[] = [];
  for (const k of kinds) {
    const t = performance.now();
    const n = withIcal(w, t + 20_000, [blocks[k.index]]);
    const ms = performance.now() - t;
    total += ms * k.of;
    parts.push(`${k.name}: ${n === null ? '> 20 s (stopped)' : `${ms.toFixed(1)} ms, ${n} occurrences`}`);
  }
  console.log(`${w.name}, ical.js, one block per kind: ${parts.join('; ')}; the 100 blocks: about ${(total / 1000).toFixed(1)} s or more`);
}
