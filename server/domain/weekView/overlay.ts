import type { Span, WeekView } from './week';

/** A proposal's candidate time on the week view, with what it runs into. */
export type CandidateOverlay = Span & {
  /** Active bookings and holds it overlaps (ids of `WeekView.events`). */
  conflicts: string[];
  /** Any part outside the owner's working hours (false when hours are not configured). */
  outside_working_hours: boolean;
  in_hard_block: boolean;
};

const overlaps = (a: Span, b: Span) => Date.parse(a.start) < Date.parse(b.end) && Date.parse(b.start) < Date.parse(a.end);

function coveredBy(span: Span, cover: Span[]): boolean {
  // Working spans of one week are sorted and disjoint: the candidate must sit inside one.
  return cover.some((c) => Date.parse(c.start) <= Date.parse(span.start) && Date.parse(span.end) <= Date.parse(c.end));
}

/**
 * Where each candidate collides on the week: overlapping active claims, hard
 * blocks, time outside working hours. A display aid only: approving runs the
 * full arbitration, which may still preempt a lower-priority claim or refuse.
 */
export function overlayCandidates(week: WeekView, candidates: Span[], ownHold?: string | null): CandidateOverlay[] {
  // An agent's booking held for approval never conflicts with its own hold (docs/api.md "Approval policies").
  const active = week.events.filter((e) => (e.status === 'confirmed' || e.status === 'active') && e.id !== ownHold);
  const working = week.days.flatMap((d) => d.working);
  const blocks = week.days.flatMap((d) => d.blocks);
  return candidates.map((c) => ({
    start: c.start,
    end: c.end,
    conflicts: active.filter((e) => overlaps(e, c)).map((e) => e.id),
    outside_working_hours: week.owner.working_hours_configured && !coveredBy(c, mergeTouching(working)),
    in_hard_block: blocks.some((b) => overlaps(b, c)),
  }));
}

/** Join spans that touch (a working day ending at 24:00 and the next starting at 00:00). */
function mergeTouching(list: Span[]): Span[] {
  const out: Span[] = [];
  for (const s of [...list].sort((a, b) => Date.parse(a.start) - Date.parse(b.start))) {
    const last = out[out.length - 1];
    if (last && Date.parse(s.start) <= Date.parse(last.end)) {
      if (Date.parse(s.end) > Date.parse(last.end)) last.end = s.end;
    } else out.push({ ...s });
  }
  return out;
}
