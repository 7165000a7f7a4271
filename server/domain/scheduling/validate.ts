/**
 * Validation of owner rules, for the layer that stores them (PUT /v1/schedule-rules). The pure
 * functions assume valid rules: an unparseable RRULE would make them throw.
 */
import { Temporal } from 'temporal-polyfill';
import { civilFromDays, daysFromCivil, parseLocalTime } from './civil';
import { MAX_DATE_OVERRIDES, MAX_OUT_OF_OFFICE, MAX_DTSTART_YEAR, MAX_HARD_BLOCKS, MAX_RRULE_BY_VALUES, MAX_RRULE_COUNT, MIN_DTSTART_YEAR } from './limits';
import { RRuleError, parseLocalDateTime, parseRRule, withCountCheckpoint } from './rrule';
import { WEEKDAYS, type HardBlock, type LocalRange, type OwnerRules } from './types';

export type RuleIssue = { path: string; message: string };

function timeOk(value: unknown, allow24: boolean): number | null {
  if (typeof value !== 'string') return null;
  try {
    return parseLocalTime(value, allow24);
  } catch {
    return null;
  }
}

/** Returns the problems found ([] = valid). */
export function validateOwnerRules(rules: OwnerRules): RuleIssue[] {
  const issues: RuleIssue[] = [];
  try {
    Temporal.Instant.fromEpochMilliseconds(0).toZonedDateTimeISO(rules.timeZone);
  } catch {
    issues.push({ path: 'time_zone', message: `"${rules.timeZone}" is not a time zone we know: choose one from the list, such as Europe/Berlin` });
  }
  if (rules.workingHours) {
    for (const day of WEEKDAYS) issues.push(...dayRangeIssues(rules.workingHours[day] ?? [], `working_hours.${day}`));
  }
  issues.push(...dateOverrideIssues(rules), ...outOfOfficeIssues(rules));
  if (rules.hardBlocks.length > MAX_HARD_BLOCKS) {
    issues.push({ path: 'hard_blocks', message: `at most ${MAX_HARD_BLOCKS} hard blocks` });
  }
  rules.hardBlocks.forEach((block, i) => {
    const path = `hard_blocks[${i}]`;
    if ('rrule' in block) {
      issues.push(...rruleIssues(block.rrule, `${path}.rrule`), ...dtstartIssues(block.dtstart, `${path}.dtstart`));
      if (!(Number.isInteger(block.duration_minutes) && block.duration_minutes > 0)) {
        issues.push({ path: `${path}.duration_minutes`, message: 'duration_minutes must be a positive integer' });
      }
    } else {
      if (!block.days.length || block.days.some((d) => !WEEKDAYS.includes(d))) {
        issues.push({ path, message: 'days must be a non-empty list of mon..sun' });
      }
      const a = timeOk(block.start, false);
      const b = timeOk(block.end, true);
      if (a === null || b === null) issues.push({ path, message: 'times must be HH:MM (end may be 24:00)' });
      else if (a === b) issues.push({ path, message: 'start and end must differ' });
    }
  });
  const max = rules.maxDailyMeetingHours;
  if (max !== null && !(typeof max === 'number' && max >= 0 && max <= 24)) {
    issues.push({ path: 'max_daily_meeting_hours', message: 'must be between 0 and 24' });
  }
  return issues;
}

/** One day's ranges: HH:MM, start before end, no two overlapping. */
function dayRangeIssues(ranges: readonly LocalRange[], prefix: string): RuleIssue[] {
  const issues: RuleIssue[] = [];
  const valid: { i: number; a: number; b: number }[] = [];
  ranges.forEach((r, i) => {
    const a = timeOk(r.start, false);
    const b = timeOk(r.end, true);
    const path = `${prefix}[${i}]`;
    if (a === null || b === null) issues.push({ path, message: 'times must be HH:MM (end may be 24:00)' });
    else if (b <= a) issues.push({ path, message: 'start must be before end' });
    else valid.push({ i, a, b });
  });
  // Ranges of one day must not overlap (the arbiter would merge them; an owner most likely
  // mistyped): the later-starting range of each overlapping pair is named, so a form shows
  // the refusal under it and a preview can leave just that range out.
  valid.sort((x, y) => x.a - y.a || x.i - y.i);
  let reach = -1;
  for (const r of valid) {
    if (r.a < reach) issues.push({ path: `${prefix}[${r.i}]`, message: 'overlaps another range of this day' });
    reach = Math.max(reach, r.b);
  }
  return issues;
}

/** A real calendar date YYYY-MM-DD within the years the service schedules. */
function localDateOk(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  try {
    const d = Temporal.PlainDate.from(value, { overflow: 'reject' });
    return d.year >= MIN_DTSTART_YEAR && d.year <= MAX_DTSTART_YEAR;
  } catch {
    return false;
  }
}

/** Date overrides (docs/arbitration.md "Date overrides"): real dates, each once, valid ranges, on configured working hours. */
function dateOverrideIssues(rules: OwnerRules): RuleIssue[] {
  const list = rules.dateOverrides ?? [];
  if (!list.length) return [];
  const issues: RuleIssue[] = [];
  if (!rules.workingHours) issues.push({ path: 'date_overrides', message: 'date overrides replace weekly working hours: configure working_hours first' });
  if (list.length > MAX_DATE_OVERRIDES) issues.push({ path: 'date_overrides', message: `at most ${MAX_DATE_OVERRIDES} date overrides` });
  const seen = new Set<string>();
  list.forEach((o, i) => {
    const path = `date_overrides[${i}]`;
    if (!localDateOk(o.date)) issues.push({ path: `${path}.date`, message: 'date must be a calendar date YYYY-MM-DD' });
    else if (seen.has(o.date)) issues.push({ path: `${path}.date`, message: `${o.date} has another override` });
    seen.add(o.date);
    issues.push(...dayRangeIssues(o.working_hours ?? [], `${path}.working_hours`));
  });
  return issues;
}

/** Out-of-office ranges (docs/arbitration.md "Out of office"): real dates, start on or before end. */
function outOfOfficeIssues(rules: OwnerRules): RuleIssue[] {
  const list = rules.outOfOffice ?? [];
  const issues: RuleIssue[] = [];
  if (list.length > MAX_OUT_OF_OFFICE) issues.push({ path: 'out_of_office', message: `at most ${MAX_OUT_OF_OFFICE} out-of-office ranges` });
  list.forEach((r, i) => {
    const path = `out_of_office[${i}]`;
    if (!localDateOk(r.start)) issues.push({ path: `${path}.start`, message: 'start must be a calendar date YYYY-MM-DD' });
    else if (!localDateOk(r.end)) issues.push({ path: `${path}.end`, message: 'end must be a calendar date YYYY-MM-DD' });
    else if (r.end < r.start) issues.push({ path, message: 'end must be on or after start (both days are included)' });
  });
  return issues;
}

/** The rule parses, and says no more than one request may expand (docs/reliability.md "Limits on work per request"). */
function rruleIssues(rrule: string, path: string): RuleIssue[] {
  try {
    const rule = parseRRule(rrule);
    const issues: RuleIssue[] = [];
    if (rule.count !== null && rule.count > MAX_RRULE_COUNT) issues.push({ path, message: `COUNT may be at most ${MAX_RRULE_COUNT}` });
    for (const [name, list] of [['BYDAY', rule.byDay], ['BYMONTHDAY', rule.byMonthDay]] as const) {
      if (list && list.length > MAX_RRULE_BY_VALUES) issues.push({ path, message: `${name} may list at most ${MAX_RRULE_BY_VALUES} values` });
    }
    return issues;
  } catch (err) {
    if (!(err instanceof RRuleError)) throw err;
    return [{ path, message: err.message }];
  }
}

function dtstartIssues(dtstart: string, path: string): RuleIssue[] {
  try {
    const { year } = civilFromDays(parseLocalDateTime(dtstart).epochDay);
    if (year < MIN_DTSTART_YEAR || year > MAX_DTSTART_YEAR) {
      return [{ path, message: `dtstart must lie in the years ${MIN_DTSTART_YEAR} to ${MAX_DTSTART_YEAR}` }];
    }
    return [];
  } catch (err) {
    if (!(err instanceof RRuleError)) throw err;
    return [{ path, message: err.message }];
  }
}

/** COUNT checkpoints are computed up to here: a year past the last supported instant and its margins. */
const CHECKPOINT_HORIZON_DAY = daysFromCivil(MAX_DTSTART_YEAR + 2, 1, 1);

type RRuleHardBlock = Extract<HardBlock, { rrule: string }>;

/**
 * Memo: rule text and DTSTART -> the block's COUNT checkpoint (or none). The checkpoint depends on
 * nothing else (the horizon is a constant), and computing it walks the rule's months since DTSTART
 * (about 1 ms per rule from 1900), so saving the same rules again, or deciding on blocks stored
 * before checkpoints existed, computes each one once per process.
 */
const checkpoints = new Map<string, RRuleHardBlock['count_checkpoint'] | null>();

function withCheckpoint(b: RRuleHardBlock): RRuleHardBlock {
  const key = `${b.rrule}|${b.dtstart}`;
  let cp = checkpoints.get(key);
  if (cp === undefined) {
    cp = withCountCheckpoint(b, CHECKPOINT_HORIZON_DAY).count_checkpoint ?? null;
    if (checkpoints.size >= 10_000) checkpoints.clear();
    checkpoints.set(key, cp);
  }
  const { count_checkpoint: _previous, ...rest } = b;
  return cp ? { ...rest, count_checkpoint: cp } : rest;
}

/**
 * Hard blocks as they are stored, for valid rules (validateOwnerRules returned []): each RRULE
 * block with its COUNT checkpoint, so no decision walks from DTSTART (rrule.ts).
 */
export function storedHardBlocks(blocks: readonly HardBlock[]): HardBlock[] {
  return blocks.map((b) => ('rrule' in b ? withCheckpoint(b) : b));
}

/**
 * The blocks a decision expands: as stored, except that a COUNT rule stored without a checkpoint
 * (saved before there were any) gets one, computed once per process and remembered, so not every
 * decision walks it from DTSTART. Blocks saved since carry theirs: this returns them unchanged.
 */
export function blocksWithCheckpoints(blocks: HardBlock[]): HardBlock[] {
  const legacy = (b: HardBlock) => 'rrule' in b && !b.count_checkpoint && /COUNT=/i.test(b.rrule);
  if (!blocks.some(legacy)) return blocks;
  return blocks.map((b) => (legacy(b) && 'rrule' in b ? withCheckpoint(b) : b));
}
