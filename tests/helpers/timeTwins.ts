import { Temporal } from 'temporal-polyfill';

/**
 * The time oracle every answer api() and the MCP tests receive is held to (docs/api.md "Time
 * zones", "The caller's time zone"): a wall-clock twin is the same instant as its UTC field —
 * `start_local` and `start_caller` as `start`, `end_local` and `end_caller` as `end` — and a
 * caller twin stands only beside an owner twin. Parsed with Temporal, not the code under test.
 */
const PAIRS = [
  ['start', 'start_local', 'start_caller'],
  ['end', 'end_local', 'end_caller'],
] as const;

const instant = (s: unknown): number | null => {
  if (typeof s !== 'string') return null;
  try {
    return Temporal.Instant.from(s).epochMilliseconds;
  } catch {
    return null;
  }
};

/** Each broken twin, by path (empty: the rule holds). */
export function timeTwinViolations(value: unknown, path = '$'): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => timeTwinViolations(v, `${path}[${i}]`));
  const o = value as Record<string, unknown>;
  const out: string[] = [];
  for (const [utc, owner, caller] of PAIRS) {
    const base = instant(o[utc]) ?? instant(o[owner]);
    for (const twin of [owner, caller]) {
      if (typeof o[twin] !== 'string') continue; // not an answer's value (e.g. the OpenAPI document's schema of one)
      const at = instant(o[twin]);
      if (at === null || (base !== null && at !== base)) out.push(`${path}.${twin} ${String(o[twin])} is not the instant of ${path}.${utc} ${String(o[utc])}`);
    }
    if (typeof o[caller] === 'string' && o[owner] === undefined) out.push(`${path}.${caller} without ${owner}`);
  }
  return [...out, ...Object.entries(o).flatMap(([k, v]) => timeTwinViolations(v, `${path}.${k}`))];
}
