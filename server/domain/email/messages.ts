import type { MailMessage } from './mailer';

/** What a requester's mail says about the meeting they asked for (no internal ids). */
export type MeetingSummary = {
  /** Meeting type title, or null for a free-text request. */
  title: string | null;
  ownerName: string | null;
  start?: Date | null;
  end?: Date | null;
  /** The reader's IANA zone (docs/public-scheduling.md "Mail": the requester's, the owner's, the attendee's; else the owner's). */
  timeZone: string;
  /** A weekly series (docs/public-scheduling.md "Repeating weekly"): every meeting of it, the first included; else absent. */
  weeks?: { start: Date; end: Date }[] | null;
};

/**
 * A time span in the reader's zone and language (Intl), and the zone's IANA name; invalid
 * zones fall back to UTC rather than failing a mail.
 */
export function mailRange(start: Date, end: Date, timeZone: string, intlLocale = 'en-US'): { range: string; zone: string } {
  let tz = timeZone;
  try {
    new Intl.DateTimeFormat(intlLocale, { timeZone: tz });
  } catch {
    tz = 'UTC';
  }
  const f = new Intl.DateTimeFormat(intlLocale, { timeZone: tz, weekday: 'long', year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
  // Plain spaces: ICU's narrow and thin spaces read badly in some mail clients' plain text.
  return { range: f.formatRange(start, end).replace(/[\u202f\u2009\u00a0]/g, ' '), zone: tz };
}

/**
 * A time span as an owner's mail shows it: in the reader's zone, with the zone named
 * (abbreviation and IANA name), e.g. "Tuesday, December 1, 2026, 4:30 – 5:00 AM EST (America/New_York)".
 */
export function formatMailRange(start: Date, end: Date, timeZone: string): string {
  const { range, zone } = mailRange(start, end, timeZone);
  return `${range} (${zone})`;
}

function describe(m: MeetingSummary): string {
  const what = m.title ? `"${m.title}"` : 'a meeting';
  const who = m.ownerName ? ` with ${m.ownerName}` : '';
  const when = m.start && m.end ? ` on ${formatMailRange(m.start, m.end, m.timeZone)}` : '';
  return `${what}${who}${when}`;
}

/** A one-time dashboard sign-in link for an owner. */
export function signInLinkMessage(to: string, url: string, validMinutes: number): MailMessage {
  return {
    to,
    subject: 'Your sign-in link for the Agent Scheduler dashboard',
    text: [
      `Open this link to sign in to the Agent Scheduler dashboard (it works once, within ${validMinutes} minutes):`,
      url,
      '',
      'If you did not ask to sign in, ignore this message.',
    ].join('\n'),
  };
}

/** An admin invites an owner to the dashboard: a one-time sign-in link, valid for `hours`. */
export function ownerInvitationMessage(to: string, url: string, m: { hours: number; ownerName: string | null; invitedBy: string }): MailMessage {
  return {
    to,
    subject: "You're invited to the Agent Scheduler dashboard",
    text: [
      `${m.ownerName ? `Hello ${m.ownerName},` : 'Hello,'}`,
      '',
      `${m.invitedBy} invited you to the Agent Scheduler dashboard, where you review meeting requests and see your week.`,
      `Open this link to sign in (it works once, within ${m.hours} hours):`,
      url,
      '',
      'Later you can ask for a new sign-in link on the sign-in page with this email address.',
      'If you did not expect this invitation, ignore this message.',
    ].join('\n'),
  };
}

/** The owner hears that a public requester cancelled a booked meeting (times in the owner's zone). */
export function requesterCancelledMessage(to: string, m: MeetingSummary & { requester: string }, reason: string | null): MailMessage {
  return {
    to,
    subject: `Cancelled by ${m.requester}: ${m.title ?? 'meeting'}`,
    text: [
      `${m.requester} cancelled ${describe({ ...m, ownerName: null })}. The time is free again.`,
      ...(reason ? ['', `Their reason: ${reason}`] : []),
    ].join('\n'),
  };
}

/** The owner hears that a request waits for their review: one line and the review page's link. */
export function proposalToReviewMessage(to: string, m: MeetingSummary & { requester: string; requesterLocale?: string | null }, reviewUrl: string): MailMessage {
  const language = m.requesterLocale ? languageName(m.requesterLocale) : null;
  return {
    to,
    subject: `New meeting request from ${m.requester}`,
    text: [
      `${m.requester} asks for ${describe({ ...m, ownerName: null })}. Review it:`,
      reviewUrl,
      // The booking pages' language they used (docs/public-scheduling.md "Languages"): the owner may answer in it.
      ...(language ? ['', `They used the booking page in ${language}.`] : []),
    ].join('\n'),
  };
}

/** "German", "Brazilian Portuguese", "Arabic" for a language tag (the tag itself when Intl has no name). */
function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames('en', { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

type Span = { start: Date; end: Date };

/** The owner hears that a requester asks to move a booked meeting (times in the owner's zone): old and new time, the review page's link. */
export function moveToReviewMessage(to: string, m: MeetingSummary & { requester: string; from: Span }, reviewUrl: string): MailMessage {
  return {
    to,
    subject: `${m.requester} asks to move ${m.title ?? 'a meeting'}`,
    text: [
      `${m.requester} asks to move ${m.title ? `"${m.title}"` : 'your meeting'}`,
      `from ${formatMailRange(m.from.start, m.from.end, m.timeZone)}`,
      `to ${m.start && m.end ? formatMailRange(m.start, m.end, m.timeZone) : 'another time'}.`,
      'Review it:',
      reviewUrl,
    ].join('\n'),
  };
}

/** The owner hears that a book-instantly meeting was moved at its requester's request (times in the owner's zone). */
export function meetingMovedMessage(to: string, m: MeetingSummary & { requester: string; from: Span }): MailMessage {
  return {
    to,
    subject: `Moved by ${m.requester}: ${m.title ?? 'meeting'}`,
    text: [
      `${m.requester} moved ${m.title ? `"${m.title}"` : 'a meeting'} (the meeting type books instantly).`,
      '',
      `New time: ${m.start && m.end ? formatMailRange(m.start, m.end, m.timeZone) : '-'}`,
      `Was: ${formatMailRange(m.from.start, m.from.end, m.timeZone)}`,
      '',
      'The attendees got the updated invitation.',
    ].join('\n'),
  };
}

/**
 * A host of a collective public type hears that another host approved a request: the meeting
 * is booked on every host's calendar (docs/public-scheduling.md "Several hosts"; times in this
 * host's zone).
 */
export function hostBookedMessage(to: string, m: MeetingSummary & { requester: string; approver: string }): MailMessage {
  return {
    to,
    subject: `Booked with you: ${m.title ?? 'meeting'} (${m.requester})`,
    text: [`${m.approver} approved ${m.requester}'s request for ${describe({ ...m, ownerName: null })}.`, 'It is booked on your calendar too; nothing to do.'].join('\n'),
  };
}
