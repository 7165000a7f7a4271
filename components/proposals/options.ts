/**
 * The times a proposal's review offers (docs/dashboard.md "Review"), shared by
 * the server page, the decision list and the week's candidate layer: what
 * each one is, which one is chosen first, and what it runs into, in words.
 * Presentation only: whether a time is free or would cancel something is
 * decided on the server (proposals.review, proposals.approvalVerdicts).
 */

/** A meeting approving would cancel (proposals.approvalVerdicts, or the server's PREEMPTION_NOT_CONFIRMED). */
export type Displaced = { id: string; kind: 'booking' | 'hold'; title: string | null; start: string; end: string; meeting_class: string | null; attendees: { email: string; name: string | null }[] };

/**
 * A time the owner may approve at, with what it runs into on the week (prepared by the page) and,
 * when known, what approving would do now: free, or cancel the `displaced` meetings.
 */
export type ReviewOption = { start: string; end: string; label: string; notes: string[]; displaced?: Displaced[] };

/** The radio value of an option (its start and end). */
export const optionKey = (o: { start: string; end: string }) => `${o.start}|${o.end}`;

/** The first time that moves nothing aside is the default; else the first that cancels nothing; else the first. */
function defaultOption(options: ReviewOption[]): ReviewOption | undefined {
  return options.find((o) => !o.displaced?.length && !o.notes.length) ?? options.find((o) => !o.displaced?.length) ?? options[0];
}

/** What an option runs into, one line each (danger), or that it is free; `free` only for the proposal's own candidates. */
export function optionLines(o: ReviewOption, free = true): { text: string; danger: boolean }[] {
  const lines = [
    ...(o.displaced?.length ? [{ text: `Would cancel ${o.displaced.map((d) => `“${d.title ?? (d.kind === 'hold' ? 'a hold' : 'a booking')}”`).join(', ')}`, danger: true }] : []),
    ...o.notes.map((text) => ({ text, danger: true })),
  ];
  return lines.length || !free ? lines : [{ text: 'Free: moves nothing', danger: false }];
}

/** The radio value of "a start of my own" (free-text requests). */
export const CUSTOM_CHOICE = 'custom';

/** What is chosen when the page opens: the default option, else (free text) a start of one's own, else nothing. */
export function initialChoice(options: ReviewOption[], freeText: boolean): string {
  const first = defaultOption(options);
  return first ? optionKey(first) : freeText ? CUSTOM_CHOICE : '';
}
