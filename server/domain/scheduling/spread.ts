import { utcOffsetAt } from './localTime';

/**
 * Choosing options a person can pick from among search results (docs/api.md "Options a person
 * can choose from"). Pure: slots in, slots out, by start.
 */
type Span = { start: number; end: number };

const DAY = 86_400_000;

/** Only slots that overlap no earlier kept one (earliest first): `distinct: true`. */
export function distinctSlots<T extends Span>(sorted: readonly T[]): T[] {
  const kept: T[] = [];
  for (const slot of sorted) if (!kept.length || slot.start >= kept[kept.length - 1].end) kept.push(slot);
  return kept;
}

/** The owner-local calendar day a slot starts on (days since 1970-01-01, local). */
export function localDay(ms: number, timeZone: string): number {
  return Math.floor((ms + utcOffsetAt(timeZone, ms)) / DAY);
}

/**
 * At most `maxPerDay` slots starting on each owner-local day (the earliest of each day), so a
 * few options spread over the days searched instead of filling the first one: `max_per_day`.
 */
export function capPerDay<T extends Span>(sorted: readonly T[], maxPerDay: number, timeZone: string): T[] {
  const counts = new Map<number, number>();
  const kept: T[] = [];
  for (const slot of sorted) {
    const day = localDay(slot.start, timeZone);
    const n = counts.get(day) ?? 0;
    if (n >= maxPerDay) continue;
    counts.set(day, n + 1);
    kept.push(slot);
  }
  return kept;
}
