/**
 * The range "Add range" proposes for a day (a starting point the owner edits):
 * one that fits beside the day's ranges, since the server refuses overlapping
 * ones (docs/dashboard.md "My schedule"). After the latest end, up to two
 * hours and never past midnight; else the gap before the earliest start; null
 * when the day is full.
 */
export function nextRange(ranges: readonly { start: string; end: string }[]): { start: string; end: string } | null {
  const toMin = (hhmm: string) => {
    const m = /^(\d{2}):(\d{2})$/.exec(hhmm ?? '');
    return m ? Number(m[1]) * 60 + Number(m[2]) : null;
  };
  const clock = (min: number) => `${String(Math.floor(min / 60)).padStart(2, '0')}:${String(min % 60).padStart(2, '0')}`;
  const spans = ranges.map((r) => [toMin(r.start), toMin(r.end)] as const).filter((s): s is readonly [number, number] => s[0] !== null && s[1] !== null && s[1] > s[0]);
  if (!spans.length) return { start: '09:00', end: '17:00' };
  const latestEnd = Math.max(...spans.map((s) => s[1]));
  if (latestEnd <= 23 * 60) return { start: clock(latestEnd), end: clock(Math.min(latestEnd + 120, 24 * 60)).replace(/^24:00$/, '23:59') };
  const earliestStart = Math.min(...spans.map((s) => s[0]));
  if (earliestStart >= 60) return { start: clock(Math.max(0, earliestStart - 120)), end: clock(earliestStart) };
  return null;
}
