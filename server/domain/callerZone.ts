import { Temporal } from 'temporal-polyfill';
import { DomainError } from './errors';
import { canonicalTimeZone, closeTimeZones, localIso } from './scheduling';

/**
 * The caller's zone (docs/api.md "The caller's time zone"): every answer that carries an owner's
 * wall-clock twin (`start_local`, `end_local`) also carries the same instant in the zone the
 * caller asked for (`time_zone`, else the key's or agent's `display_time_zone`), named
 * `start_caller` / `end_caller` so neither is mistaken for the other.
 */

/** The one list of caller twins: a UTC field, the owner's twin beside which a caller twin is added, and that twin's name. */
export const CALLER_TWINS = [
  { utc: 'start', owner: 'start_local', caller: 'start_caller' },
  { utc: 'end', owner: 'end_local', caller: 'end_caller' },
] as const;

/** An IANA zone in its IANA spelling (any letter case in), or 400 INVALID_TIME_ZONE with close matches (docs/api.md "Time zones"). */
export function requireTimeZone(tz: string, field = 'time_zone'): string {
  const name = canonicalTimeZone(tz);
  if (name !== null) return name;
  const close = closeTimeZones(tz);
  const hint = close.length ? `did you mean ${close.join(' or ')}? ` : '';
  throw new DomainError('INVALID_TIME_ZONE', `Unknown IANA time zone: ${tz}; ${hint}GET /v1/time-zones lists every name this server accepts`, {
    fields: [{ field, message: `"${tz}" is not an IANA time zone; ${hint}see GET /v1/time-zones` }],
    extra: { did_you_mean: close },
  });
}

const MAX_DEPTH = 16;

/** The instant of a twin pair: its UTC field when present (a hold's own start_local has none), else the owner's twin, which is the same instant. */
function instantOf(utc: unknown, local: string): number | null {
  if (typeof utc === 'string') {
    const ms = Date.parse(utc);
    if (Number.isFinite(ms)) return ms;
  }
  try {
    return Temporal.Instant.from(local).epochMilliseconds;
  } catch {
    return null;
  }
}

/**
 * A copy of an answer in which every owner's twin (CALLER_TWINS: `start_local`, `end_local`,
 * wherever they are) has the caller's twin right after it: the same instant on the `zone` wall
 * clock. Everything else is left as it is.
 */
export function withCallerTimes<T>(value: T, zone: string): T {
  return twin(value, zone, 0) as T;
}

function twin(value: unknown, zone: string, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => twin(v, zone, depth + 1));
  const src = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(src)) {
    out[k] = twin(v, zone, depth + 1);
    const pair = CALLER_TWINS.find((t) => t.owner === k);
    if (pair && typeof v === 'string') {
      const ms = instantOf(src[pair.utc], v);
      if (ms !== null) out[pair.caller] = localIso(ms, zone);
    }
  }
  return out;
}
