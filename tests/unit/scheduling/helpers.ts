/** Shared builders for the scheduling unit tests (not a test file itself). */
import type { Claim, HardBlock, LocalRange, OwnerRules, RequestPolicy, Weekday } from '@/server/domain/scheduling';

export const MIN = 60_000;
export const H = 3_600_000;

/** Parses an ISO instant with an explicit offset or Z; throws on anything ambiguous. */
export function at(iso: string): number {
  if (!/(Z|[+-]\d{2}:\d{2})$/.test(iso)) throw new Error(`instant needs an offset: ${iso}`);
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new Error(`bad instant ${iso}`);
  return ms;
}

export const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');

export function week(
  ranges: LocalRange[],
  days: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri'],
): Record<Weekday, LocalRange[]> {
  const all: Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  return Object.fromEntries(all.map((d) => [d, days.includes(d) ? ranges : []])) as Record<Weekday, LocalRange[]>;
}

export function rules(over: Partial<OwnerRules> = {}): OwnerRules {
  return {
    timeZone: 'Europe/Berlin',
    workingHours: week([{ start: '09:00', end: '17:00' }]),
    hardBlocks: [] as HardBlock[],
    maxDailyMeetingHours: null,
    ...over,
  };
}

let seq = 0;
export function claim(start: number, end: number, over: Partial<Claim> = {}): Claim {
  return {
    id: over.id ?? `c${++seq}`,
    kind: 'booking',
    start,
    end,
    countedMinutes: (end - start) / MIN,
    priority: 1,
    sacred: false,
    ...over,
  };
}

export const POLICY: RequestPolicy = { priority: 5, preemptPolicy: 'preempt_lower', agentCanPreempt: true };

/** Renders intervals as ISO pairs for readable assertions. */
export const show = (list: { start: number; end: number }[]) => list.map((i) => `${iso(i.start)}/${iso(i.end)}`);
