/**
 * The sections of the results page docs/benchmarks.md, in the order the page shows them: one per
 * benchmark. `name` is the section's marker (`<!-- bench:NAME:start ... -->`); `title` its heading,
 * which docs and code comments cite in quotes after docs/benchmarks.md; `source` the script that measures
 * it; `generated` says whether that script writes the section itself (bench/lib/benchDoc.ts
 * `writeBenchSection`) or its figures are recorded by hand in the same layout.
 *
 * A new benchmark adds its entry here (the page keeps this order; tests/unit/benchmarksDoc.test.ts
 * checks the page against this list).
 */
export const BENCH_SECTIONS = [
  { name: 'availability', title: 'Availability search', source: 'bench/availability.ts', generated: true },
  { name: 'collective-search', title: 'Collective search', source: 'bench/collective-search.ts', generated: true },
  { name: 'booking', title: 'Booking throughput', source: 'bench/booking.ts', generated: true },
  { name: 'contention', title: 'Contention and history', source: 'bench/contention.ts', generated: false },
  { name: 'group-race', title: 'Group holds racing', source: 'bench/group-race.ts', generated: false },
  { name: 'request-cost', title: 'Cost of one request', source: 'bench/request-cost.ts', generated: false },
  { name: 'peer-race', title: 'Against floyd-run/engine', source: '../shared/peers/race.mjs', generated: false },
  { name: 'framework-floor', title: 'Framework floor', source: 'bench/framework-floor.ts', generated: false },
  { name: 'memory', title: 'Server memory', source: 'bench/memory.ts', generated: true },
  { name: 'memory-floor', title: 'Memory floor', source: 'bench/memory-floor.ts', generated: false },
  { name: 'tracing', title: 'Tracing cost', source: 'bench/booking.ts --tracing', generated: false },
  { name: 'abuse', title: 'Abuse: bounded work per request', source: 'bench/abuse.ts', generated: true },
  { name: 'webhooks', title: 'Webhooks', source: 'bench/webhooks.ts', generated: true },
  { name: 'reminders', title: 'Reminders', source: 'bench/reminders.ts', generated: true },
  { name: 'series', title: 'Recurring series', source: 'bench/series.ts', generated: true },
  { name: 'waitlist-offer', title: 'Waitlist offers', source: 'bench/waitlist-offer.ts', generated: true },
  { name: 'idle', title: 'Idle server', source: 'bench/idle.ts', generated: true },
  { name: 'pages', title: 'Browser pages', source: 'bench/pages.ts', generated: true },
  { name: 'calendars', title: 'Connected calendars', source: 'bench/calendars.ts', generated: false },
  { name: 'rrule-engines', title: 'Hard-block recurrence', source: 'bench/rrule-engines.ts', generated: false },
  { name: 'pool-fairness', title: 'Pool fairness', source: 'bench/pool-fairness.ts', generated: false },
  { name: 'delete-customer', title: 'Deleting a customer', source: 'bench/delete-customer.ts', generated: false },
  { name: 'failover', title: 'Failover', source: 'bench/failover.ts', generated: true },
] as const;

export type BenchSection = (typeof BENCH_SECTIONS)[number];
export type SectionName = BenchSection['name'];

export function sectionOf(name: SectionName): BenchSection {
  return BENCH_SECTIONS.find((s) => s.name === name)!;
}
