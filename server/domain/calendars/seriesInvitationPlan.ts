import type { SentSeriesInvitation } from '@/db/schema';

/**
 * What a series' invitation must say next (docs/calendars.md "Series invitations"), from what its
 * last mail said and the occurrences as they are now. Pure: no clock, no database.
 *
 * - No occurrence left confirmed: METHOD:CANCEL of the whole series (its UID, no RECURRENCE-ID).
 * - One occurrence gone (cancelled or preempted): METHOD:CANCEL with its RECURRENCE-ID (RFC 5546
 *   3.2.5), which every common client applies to that instance alone.
 * - Several gone at once: a REQUEST update of the series. When nothing confirmed is left after the
 *   first of them (a cancel of "this and following"), the rule ends with UNTIL at the last
 *   occurrence kept; otherwise each gone one is an EXDATE.
 * - An occurrence moved (rescheduled): a VEVENT with its RECURRENCE-ID and the new time.
 */

export type SeriesOccurrenceNow = { id: string; start: Date; end: Date; status: string };

export type SeriesPlan = {
  cancelSeries: boolean;
  /** The one occurrence to cancel by RECURRENCE-ID. */
  cancelOccurrence: { rid: string; start: string; end: string } | null;
  /** A REQUEST update of the whole series (its EXDATEs and UNTIL as `next` says). */
  updateSeries: boolean;
  /** Occurrences away from their rule instance, each a VEVENT with RECURRENCE-ID (with a series update, all of them; else the ones moved since). */
  overrides: { rid: string; start: string; end: string }[];
  next: SentSeriesInvitation;
};

/** `durationMs`: how long each rule instance lasts (the series' first occurrence). */
export function planSeriesUpdate(sent: SentSeriesInvitation, now: SeriesOccurrenceNow[], durationMs: number): SeriesPlan | null {
  const known = now.filter((o) => sent.occurrences[o.id]);
  const ridOf = (o: SeriesOccurrenceNow) => sent.occurrences[o.id].rid;
  const excluded = new Set(sent.exdates);
  // Told already: an EXDATE, or past the rule's UNTIL.
  const told = (rid: string) => excluded.has(rid) || (sent.until !== null && rid > sent.until);
  const live = known.filter((o) => o.status === 'confirmed');
  const gone = known.filter((o) => o.status !== 'confirmed' && !told(ridOf(o)));
  const moved = live.filter((o) => o.start.toISOString() !== sent.occurrences[o.id].start || o.end.toISOString() !== sent.occurrences[o.id].end);
  if (!gone.length && !moved.length) return null;
  const occurrences = { ...sent.occurrences };
  for (const o of moved) occurrences[o.id] = { rid: ridOf(o), start: o.start.toISOString(), end: o.end.toISOString() };
  const exdates = [...sent.exdates, ...gone.map(ridOf)].sort();
  const base = { cancelSeries: false, cancelOccurrence: null, updateSeries: false, overrides: [] as SeriesPlan['overrides'] };
  const away = (list: SeriesOccurrenceNow[]) => list.filter((o) => o.start.toISOString() !== ridOf(o) || o.end.getTime() - o.start.getTime() !== durationMs).map((o) => occurrences[o.id]);
  if (!live.length) return { ...base, cancelSeries: true, next: { ...sent, occurrences, exdates } };
  const movedOnes = moved.map((o) => occurrences[o.id]);
  if (gone.length === 1) {
    const g = gone[0];
    return { ...base, cancelOccurrence: { rid: ridOf(g), start: g.start.toISOString(), end: g.end.toISOString() }, overrides: movedOnes, next: { ...sent, occurrences, exdates } };
  }
  if (!gone.length) return { ...base, overrides: movedOnes, next: { ...sent, occurrences } };
  const firstGone = gone.map(ridOf).sort()[0];
  const liveRids = live.map(ridOf).sort();
  const tail = liveRids[liveRids.length - 1] < firstGone;
  const until = tail ? liveRids[liveRids.length - 1] : sent.until;
  // Past UNTIL an EXDATE says nothing: keep those the rule still reaches.
  const kept = until ? exdates.filter((x) => x <= until) : exdates;
  return { ...base, updateSeries: true, overrides: away(live), next: { ...sent, occurrences, exdates: kept, until } };
}
