/**
 * RFC 5545 RRULE expansion for hard blocks (a pragmatic subset, validated strictly).
 *
 * Supported: FREQ=DAILY|WEEKLY|MONTHLY, INTERVAL, COUNT, UNTIL (date, floating local date-time or
 * UTC "Z" date-time), BYDAY (ordinals like 1MO / -1FR only with MONTHLY), BYMONTHDAY (MONTHLY),
 * WKST. Anything else is rejected with RRuleError, so a rule is never silently misread.
 *
 * Semantics chosen:
 * - DTSTART is always the first occurrence and counts toward COUNT (RFC 5545 3.8.5.3), even when
 *   it does not match BYDAY/BYMONTHDAY (the way ical.js expands it).
 * - Each occurrence starts at DTSTART's local wall-clock time on its date; the local date-time is
 *   converted with Temporal's 'compatible' disambiguation, which is RFC 5545 3.3.5: a time in a
 *   fold is its first occurrence, a time in a gap is read with the offset before the gap (so 02:30
 *   on a spring-forward day becomes 03:30 summer time). The block lasts duration_minutes of real time.
 * - Invalid dates (BYMONTHDAY=31 in April, DTSTART on the 31st with plain MONTHLY) are skipped.
 * - Expansion is bounded by the query range: DAILY and WEEKLY jump to the first period of the range
 *   arithmetically and compute each occurrence's COUNT index in O(1); MONTHLY without COUNT jumps as
 *   well. MONTHLY with COUNT has no closed form (a month holds a varying number of occurrences), so
 *   its COUNT boundary is computed once, when the rule is saved (countCheckpoint), and stored with
 *   the block: expansion then jumps too. Only a block stored without its checkpoint (saved before
 *   there was one) walks months from DTSTART.
 */
import { civilFromDays, daysFromCivil, daysInMonth, weekdayIndex } from './civil';
import { compatibleInstant, DAY, HOUR, MINUTE } from './localTime';
import type { Interval } from './types';

export class RRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RRuleError';
  }
}

type ByDay = { weekday: number; ordinal: number }; // weekday 0 = Monday; ordinal 0 = every
type Until = { kind: 'date'; epochDay: number } | { kind: 'local'; epochDay: number; second: number } | { kind: 'utc'; ms: number };

export type ParsedRRule = {
  freq: 'DAILY' | 'WEEKLY' | 'MONTHLY';
  interval: number;
  count: number | null;
  until: Until | null;
  byDay: ByDay[] | null;
  byMonthDay: number[] | null;
  wkst: number;
};

const DAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

function positiveInt(key: string, value: string): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) throw new RRuleError(`${key} must be a positive integer`);
  return Number(value);
}

function validDate(y: number, m: number, d: number): boolean {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(y, m);
}

function parseUntil(value: string): Until {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value);
  if (!m) throw new RRuleError(`invalid UNTIL "${value}"`);
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (!validDate(y, mo, d)) throw new RRuleError(`invalid UNTIL date "${value}"`);
  if (m[4] === undefined) return { kind: 'date', epochDay: daysFromCivil(y, mo, d) };
  const [h, mi, s] = [Number(m[4]), Number(m[5]), Number(m[6])];
  if (h > 23 || mi > 59 || s > 59) throw new RRuleError(`invalid UNTIL time "${value}"`);
  if (m[7]) return { kind: 'utc', ms: Date.UTC(y, mo - 1, d, h, mi, s) };
  return { kind: 'local', epochDay: daysFromCivil(y, mo, d), second: h * 3600 + mi * 60 + s };
}

export function parseRRule(input: string): ParsedRRule {
  const text = input.trim().replace(/^RRULE:/i, '');
  const parts = new Map<string, string>();
  for (const part of text.split(';')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new RRuleError(`malformed rule part "${part}"`);
    const key = part.slice(0, eq).toUpperCase();
    if (parts.has(key)) throw new RRuleError(`duplicate rule part ${key}`);
    parts.set(key, part.slice(eq + 1).toUpperCase());
  }
  for (const key of parts.keys()) {
    if (!['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'BYMONTHDAY', 'WKST'].includes(key)) {
      throw new RRuleError(`unsupported rule part ${key}`);
    }
  }
  const freq = parts.get('FREQ');
  if (freq !== 'DAILY' && freq !== 'WEEKLY' && freq !== 'MONTHLY') {
    throw new RRuleError('FREQ must be DAILY, WEEKLY or MONTHLY');
  }
  if (parts.has('COUNT') && parts.has('UNTIL')) throw new RRuleError('COUNT and UNTIL must not both be given');
  const interval = parts.has('INTERVAL') ? positiveInt('INTERVAL', parts.get('INTERVAL')!) : 1;
  const count = parts.has('COUNT') ? positiveInt('COUNT', parts.get('COUNT')!) : null;
  const until = parts.has('UNTIL') ? parseUntil(parts.get('UNTIL')!) : null;
  let wkst = 0;
  if (parts.has('WKST')) {
    wkst = DAY_CODES.indexOf(parts.get('WKST')!);
    if (wkst < 0) throw new RRuleError('invalid WKST');
  }
  let byDay: ByDay[] | null = null;
  if (parts.has('BYDAY')) {
    byDay = parts.get('BYDAY')!.split(',').map((item) => {
      const m = /^([+-]?\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/.exec(item);
      if (!m) throw new RRuleError(`invalid BYDAY value "${item}"`);
      const ordinal = m[1] ? Number(m[1]) : 0;
      if (m[1] && (freq !== 'MONTHLY' || ordinal === 0 || Math.abs(ordinal) > 5)) {
        throw new RRuleError(`BYDAY ordinal "${item}" is only valid with FREQ=MONTHLY (1..5 or -1..-5)`);
      }
      return { weekday: DAY_CODES.indexOf(m[2]), ordinal };
    });
  }
  let byMonthDay: number[] | null = null;
  if (parts.has('BYMONTHDAY')) {
    if (freq !== 'MONTHLY') throw new RRuleError('BYMONTHDAY is only supported with FREQ=MONTHLY');
    byMonthDay = parts.get('BYMONTHDAY')!.split(',').map((item) => {
      const v = /^[+-]?\d{1,2}$/.test(item) ? Number(item) : NaN;
      if (!Number.isInteger(v) || v === 0 || Math.abs(v) > 31) throw new RRuleError(`invalid BYMONTHDAY "${item}"`);
      return v;
    });
  }
  return { freq, interval, count, until, byDay, byMonthDay, wkst };
}

/** Parses an owner-local "YYYY-MM-DDTHH:MM" (optionally ":SS"). */
export function parseLocalDateTime(value: string): { epochDay: number; second: number } {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  const [y, mo, d, h, mi, s] = m ? m.slice(1).map((x) => Number(x ?? 0)) : [];
  if (!m || !validDate(y, mo, d) || h > 23 || mi > 59 || s > 59) {
    throw new RRuleError(`invalid dtstart "${value}" (expected local YYYY-MM-DDTHH:MM)`);
  }
  return { epochDay: daysFromCivil(y, mo, d), second: h * 3600 + mi * 60 + s };
}

/** Epoch days of the month's dates selected by the rule (sorted). */
function monthDays(rule: ParsedRRule, year: number, month: number, defaultDom: number): number[] {
  const first = daysFromCivil(year, month, 1);
  const len = daysInMonth(year, month);
  let set: Set<number> | null = null;
  if (rule.byMonthDay) {
    set = new Set();
    for (const v of rule.byMonthDay) {
      const d = v > 0 ? v : len + v + 1;
      if (d >= 1 && d <= len) set.add(d);
    }
  }
  if (rule.byDay) {
    const days = new Set<number>();
    const firstWd = weekdayIndex(first);
    for (const { weekday, ordinal } of rule.byDay) {
      const all: number[] = [];
      for (let d = 1 + ((weekday - firstWd + 7) % 7); d <= len; d += 7) all.push(d);
      if (ordinal === 0) all.forEach((d) => days.add(d));
      else {
        const pick = ordinal > 0 ? all[ordinal - 1] : all[all.length + ordinal];
        if (pick !== undefined) days.add(pick);
      }
    }
    set = set ? new Set([...set].filter((d) => days.has(d))) : days;
  }
  if (!set) set = new Set(defaultDom <= len ? [defaultDom] : []);
  return [...set].sort((a, b) => a - b).map((d) => first + d - 1);
}

/**
 * Where COUNT stands for a MONTHLY rule: the occurrences before local date `day` (the first day of
 * a month of the rule's sequence, or DTSTART when that month is DTSTART's) number `used`. Before `day`, COUNT cannot be used up; from
 * `day` on, counting resumes at `used`.
 */
type CountCheckpoint = { day: number; used: number };

const monthOf = (epochDay: number) => {
  const c = civilFromDays(epochDay);
  return c.year * 12 + (c.month - 1);
};

function monthStart(monthIndex: number): number {
  const year = Math.floor(monthIndex / 12);
  return daysFromCivil(year, monthIndex - year * 12 + 1, 1);
}

/** Does DTSTART match the rule itself (else it is an extra first occurrence)? */
function startMatches(rule: ParsedRRule, d0: number): boolean {
  const c0 = civilFromDays(d0);
  if (rule.freq === 'MONTHLY') return monthDays(rule, c0.year, c0.month, c0.day).includes(d0);
  return !rule.byDay || rule.byDay.some((b) => b.weekday === weekdayIndex(d0));
}

/**
 * The COUNT checkpoint of a MONTHLY rule with COUNT (null for any other rule): the month in which
 * COUNT is used up, or else the first month of the sequence starting after `horizonDay`. Walks the
 * months from DTSTART once (at most up to the horizon); store the result with the rule.
 */
function countCheckpoint(rule: ParsedRRule, d0: number, horizonDay: number): CountCheckpoint | null {
  const { count, interval: I } = rule;
  if (rule.freq !== 'MONTHLY' || count === null) return null;
  const c0 = civilFromDays(d0);
  const m0 = monthOf(d0);
  // How many dates a month holds depends only on its length and the weekday of its 1st: 28 kinds.
  const perKind = new Map<number, number>();
  let used = startMatches(rule, d0) ? 0 : 1;
  for (let k = 0; ; k++) {
    const mi = m0 + k * I;
    const first = monthStart(mi);
    if (used >= count || first > horizonDay) return { day: k === 0 ? d0 : first, used };
    const year = Math.floor(mi / 12);
    const month = mi - year * 12 + 1;
    let n: number;
    if (k === 0) n = monthDays(rule, year, month, c0.day).filter((d) => d >= d0).length;
    else {
      const kind = daysInMonth(year, month) * 7 + weekdayIndex(first);
      n = perKind.get(kind) ?? monthDays(rule, year, month, c0.day).length;
      perKind.set(kind, n);
    }
    if (used + n >= count) return { day: k === 0 ? d0 : first, used };
    used += n;
  }
}

/**
 * Occurrence dates (epoch days) of the rule within [lo, hi], ascending, honouring COUNT.
 * `d0` is DTSTART's date; `checkpoint` (MONTHLY with COUNT) what countCheckpoint() computed.
 */
function* occurrenceDays(rule: ParsedRRule, d0: number, lo: number, hi: number, checkpoint: CountCheckpoint | null = null): Generator<number> {
  const { interval: I, count } = rule;
  const wd0 = weekdayIndex(d0);
  const c0 = civilFromDays(d0);
  const byWeekday = rule.byDay ? new Set(rule.byDay.map((b) => b.weekday)) : null;
  const extra = startMatches(rule, d0) ? 0 : 1; // DTSTART is an extra first occurrence
  if (extra && d0 >= lo && d0 <= hi) yield d0;
  const exhausted = (index: number) => count !== null && index >= count;
  if (exhausted(extra)) return;

  if (rule.freq === 'DAILY') {
    // Candidates d0 + j*I. With BYDAY the weekday pattern repeats every p candidates.
    const p = I % 7 === 0 ? 1 : 7;
    const match: boolean[] = [];
    const prefix: number[] = [0];
    for (let r = 0; r < p; r++) {
      match.push(!byWeekday || byWeekday.has(weekdayIndex(d0 + r * I)));
      prefix.push(prefix[r] + (match[r] ? 1 : 0));
    }
    const perPeriod = prefix[p];
    if (perPeriod === 0) return;
    for (let j = Math.max(0, Math.ceil((lo - d0) / I)); ; j++) {
      const day = d0 + j * I;
      if (day > hi) return;
      if (!match[j % p]) continue;
      const index = extra + Math.floor(j / p) * perPeriod + prefix[j % p];
      if (exhausted(index)) return;
      yield day;
    }
  }

  if (rule.freq === 'WEEKLY') {
    const weekdays = byWeekday ? [...byWeekday] : [wd0];
    const offsets = [...new Set(weekdays.map((w) => (w - rule.wkst + 7) % 7))].sort((a, b) => a - b);
    const w0 = d0 - ((wd0 - rule.wkst + 7) % 7); // first day of DTSTART's week (by WKST)
    const n = offsets.length;
    const inFirstWeek = offsets.filter((o) => w0 + o >= d0).length;
    const span = 7 * I;
    for (let k = Math.max(0, Math.floor((lo - w0) / span)); ; k++) {
      const base = w0 + span * k;
      if (base > hi) return;
      for (let pos = 0; pos < n; pos++) {
        const day = base + offsets[pos];
        if (k === 0 && day < d0) continue;
        const index = extra + (k === 0 ? pos - (n - inFirstWeek) : inFirstWeek + (k - 1) * n + pos);
        if (exhausted(index)) return;
        if (day > hi) return;
        if (day >= lo) yield day;
      }
    }
  }

  // MONTHLY. `index` is the COUNT index of the next occurrence; null while it cannot matter (no
  // COUNT, or before the checkpoint, where COUNT is not used up yet).
  const m0 = monthOf(d0);
  const loMonth = monthOf(lo);
  const jump = Math.max(0, Math.floor((loMonth - m0) / I));
  const kc = checkpoint && count !== null ? Math.round((monthOf(checkpoint.day) - m0) / I) : null;
  let k: number;
  let index: number | null;
  if (count === null) [k, index] = [jump, null];
  else if (kc === null) [k, index] = [0, extra]; // no checkpoint: walk from DTSTART
  else if (jump < kc) [k, index] = [jump, null];
  else [k, index] = [kc, checkpoint!.used];
  for (; ; k++) {
    if (k === kc) index = checkpoint!.used;
    const mi = m0 + k * I;
    const year = Math.floor(mi / 12);
    const month = mi - year * 12 + 1;
    if (daysFromCivil(year, month, 1) > hi) return;
    for (const day of monthDays(rule, year, month, c0.day)) {
      if (k === 0 && day < d0) continue;
      if (index !== null) {
        if (exhausted(index)) return;
        index++;
      }
      if (day > hi) return;
      if (day >= lo) yield day;
    }
  }
}

/** UTC offsets lie within -12 h and +14 h: a local date is within this much of the UTC date. */
const MAX_OFFSET_MS = 15 * HOUR;

/** How a checkpoint is stored with its block: `day` is the local date YYYY-MM-DD. */
type StoredCountCheckpoint = { day: string; used: number };
export type RRuleBlock = { rrule: string; dtstart: string; duration_minutes: number; count_checkpoint?: StoredCountCheckpoint };

/**
 * The block as it is stored: with its COUNT checkpoint (MONTHLY with COUNT; see countCheckpoint),
 * computed up to the local date `horizonDay`, and without one otherwise. Throws RRuleError on an
 * invalid rule.
 */
export function withCountCheckpoint<B extends RRuleBlock>(block: B, horizonDay: number): B {
  const { count_checkpoint: _previous, ...rest } = block;
  const start = parseLocalDateTime(block.dtstart);
  const cp = countCheckpoint(parseRRule(block.rrule), start.epochDay, horizonDay);
  if (!cp) return rest as B;
  const c = civilFromDays(cp.day);
  const day = `${String(c.year).padStart(4, '0')}-${String(c.month).padStart(2, '0')}-${String(c.day).padStart(2, '0')}`;
  return { ...rest, count_checkpoint: { day, used: cp.used } } as B;
}

function parseCheckpoint(stored: StoredCountCheckpoint | undefined): CountCheckpoint | null {
  const m = stored && /^(\d{4})-(\d{2})-(\d{2})$/.exec(stored.day);
  if (!m || !Number.isInteger(stored!.used)) return null;
  return { day: daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3])), used: stored!.used };
}

/** Memo of parsed rules (a rule's text always parses the same; the parsed rule is never mutated). */
const parsedRules = new Map<string, ParsedRRule>();
function parsedRule(text: string): ParsedRRule {
  let rule = parsedRules.get(text);
  if (!rule) {
    rule = parseRRule(text);
    if (parsedRules.size >= 10_000) parsedRules.clear();
    parsedRules.set(text, rule);
  }
  return rule;
}

/** Real intervals of an RRULE hard block that intersect [from, to) (unclipped), ascending. Decisions read it through the memo in rruleMemo.ts. */
export function expandRRuleRange(block: RRuleBlock, timeZone: string, from: number, to: number): Interval[] {
  const rule = parsedRule(block.rrule);
  const start = parseLocalDateTime(block.dtstart);
  const durationMs = block.duration_minutes * MINUTE;
  if (!(durationMs > 0) || !Number.isFinite(durationMs)) throw new RRuleError('duration_minutes must be positive');
  if (!(to > from)) return [];
  // Local dates whose occurrences may intersect [from, to), whatever the zone's offset (no Temporal).
  const lo = Math.floor((from - durationMs - MAX_OFFSET_MS) / DAY);
  const hi = Math.floor((to + MAX_OFFSET_MS) / DAY);
  const out: Interval[] = [];
  const { until } = rule;
  for (const day of occurrenceDays(rule, start.epochDay, lo, hi, parseCheckpoint(block.count_checkpoint))) {
    if (until?.kind === 'date' && day > until.epochDay) break;
    if (until?.kind === 'local' && (day > until.epochDay || (day === until.epochDay && start.second > until.second))) break;
    const s = compatibleInstant(timeZone, day, start.second);
    if (until?.kind === 'utc' && s > until.ms) break;
    if (s < to && s + durationMs > from) out.push({ start: s, end: s + durationMs });
  }
  return out;
}
