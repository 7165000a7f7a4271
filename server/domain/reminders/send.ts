import { createHash } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import type { Db, Executor } from '@/db/client';
import { runTransaction } from '@/db/hot/driver';
import { finishReminder, retryReminderAt, type LeasedReminder } from '@/db/hot/reminders';
import { bookingProposals, meetingClasses, owners, publicMeetingTypes } from '@/db/schema';
import { mailLocale } from '@/i18n/mail';
import type { Locale } from '@/i18n/locales';
import { reminderMessage, sendMail } from '../email';
import { enqueueNotification } from '../notificationService';
import { localSpan } from '../scheduling';

/** Attempts at a reminder whose every mail failed before it is recorded anyway (its notification and webhook event go out). */
const MAX_REMINDER_ATTEMPTS = 5;
/** The first retry of a reminder whose mail failed, doubling per attempt. */
const RETRY_BASE_MS = 30_000;

/** What a reminder's messages say about its booking: the owner, the class, a public type's title and place, and each reader's zone. */
type ReminderContext = {
  ownerEmail: string;
  ownerName: string | null;
  ownerTimeZone: string;
  meetingClass: string | null;
  title: string | null;
  location: string | null;
  /** Reader -> IANA zone: the requester's from their booking pages, an owner's own; else the organizing owner's. */
  zones: Map<string, string>;
  /** The public requester and the language of their request (docs/public-scheduling.md "Languages"); everyone else reads English. */
  requester: { email: string; locale: Locale } | null;
  recipients: string[];
};

async function contextOf(db: Executor, r: LeasedReminder): Promise<ReminderContext | null> {
  const b = r.booking;
  const [owner] = await db.select({ email: owners.email, name: owners.name, timeZone: owners.timeZone }).from(owners).where(eq(owners.id, b.ownerId));
  if (!owner) return null;
  const [cls] = b.meetingClassId ? await db.select({ name: meetingClasses.name }).from(meetingClasses).where(eq(meetingClasses.id, b.meetingClassId)) : [];
  const [proposal] = b.proposalId
    ? await db
        .select({ email: bookingProposals.requesterEmail, timeZone: bookingProposals.requesterTimeZone, locale: bookingProposals.requesterLocale, typeTitle: publicMeetingTypes.title, location: publicMeetingTypes.location })
        .from(bookingProposals)
        .leftJoin(publicMeetingTypes, eq(publicMeetingTypes.id, bookingProposals.meetingTypeId))
        .where(eq(bookingProposals.id, b.proposalId))
    : [];
  // The attendees, and a public requester even when not among them; never the organizing owner.
  const recipients = [...new Set([...(b.attendees ?? []).map((a) => a.email.toLowerCase()), ...(proposal?.email ? [proposal.email.toLowerCase()] : [])])].filter((e) => e !== owner.email.toLowerCase());
  const zones = new Map<string, string>();
  if (recipients.length) {
    const known = await db.select({ email: owners.email, tz: owners.timeZone }).from(owners).where(and(eq(owners.customerId, b.customerId), inArray(owners.email, recipients)));
    for (const o of known) zones.set(o.email.toLowerCase(), o.tz);
  }
  if (proposal?.email && proposal.timeZone) zones.set(proposal.email.toLowerCase(), proposal.timeZone);
  return {
    ownerEmail: owner.email,
    ownerName: owner.name,
    ownerTimeZone: owner.timeZone,
    meetingClass: cls?.name ?? null,
    // A public booking: the type's title, as the requester knows it (the booking's own names the requester, for the owner).
    title: proposal?.typeTitle ?? b.title ?? null,
    location: proposal?.location ?? null,
    zones,
    requester: proposal?.email ? { email: proposal.email.toLowerCase(), locale: mailLocale(proposal.locale) } : null,
    recipients,
  };
}

export type ReminderOutcome = 'sent' | 'skipped' | 'retry' | 'lost';

/**
 * Send one leased reminder (docs/reliability.md "Reminders"): its mail to every attendee and the
 * requester, each in their own zone, then, in one transaction, the row turns `sent` (only while
 * this worker's lease holds and the row is still pending) together with the `booking.reminder`
 * notification and webhook event for the booking's agent. A reminder whose meeting has begun is
 * recorded `skipped` without a message. When every mail failed (the mail server down), the row
 * is kept for a retry, up to MAX_REMINDER_ATTEMPTS. `lost`: a move, a cancel or another worker
 * changed the row meanwhile, and nothing is recorded.
 */
export async function sendReminder(db: Db, r: LeasedReminder, now: () => Date): Promise<ReminderOutcome> {
  const lease = r.leaseUntil!;
  const b = r.booking;
  const ctx = b.status === 'confirmed' && b.startAt.getTime() > now().getTime() ? await contextOf(db, r) : null;
  if (!ctx) return (await finishReminder(db, r.id, lease, now(), 'skipped')) ? 'skipped' : 'lost';
  let failed = 0;
  for (const to of ctx.recipients) {
    const timeZone = ctx.zones.get(to) ?? ctx.ownerTimeZone;
    const msg = reminderMessage(to, { title: ctx.title, ownerName: ctx.ownerName, start: b.startAt, end: b.endAt, timeZone, offsetMinutes: r.offsetMinutes, location: ctx.location }, ctx.requester?.email === to ? ctx.requester.locale : 'en');
    const res = await sendMail({ ...msg, messageId: `<reminder-${r.id}-${createHash('sha256').update(to).digest('hex').slice(0, 16)}@agent-scheduler>` });
    if (res.delivered === false) failed++;
  }
  if (ctx.recipients.length && failed === ctx.recipients.length && r.attempts < MAX_REMINDER_ATTEMPTS) {
    await retryReminderAt(db, r.id, lease, new Date(now().getTime() + RETRY_BASE_MS * 2 ** (r.attempts - 1)));
    return 'retry';
  }
  const at = now();
  const recorded = await runTransaction(db, async (tx) => {
    if (!(await finishReminder(tx, r.id, lease, at, 'sent'))) return false;
    if (b.agentId) {
      const data = {
        booking_id: b.id,
        owner_email: ctx.ownerEmail,
        meeting_class: ctx.meetingClass,
        title: ctx.title,
        ...localSpan(b.startAt, b.endAt, ctx.ownerTimeZone),
        offset_minutes: r.offsetMinutes,
        due_at: r.dueAt.toISOString(),
        recipients: ctx.recipients,
        ...(b.groupId ? { group_id: b.groupId } : {}),
      };
      await enqueueNotification(tx, { customerId: b.customerId, agentId: b.agentId, kind: 'booking.reminder', data, now: at });
    }
    return true;
  });
  return recorded ? 'sent' : 'lost';
}
