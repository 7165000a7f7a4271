import { and, asc, eq, gte } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { bookingReminders, claims, meetingClasses } from '@/db/schema';
import type { AgentActor } from '../access';
import { getBooking } from '../claims';

/** A reminder as answers show it (docs/api.md "Reminders"). */
export type ReminderView = { offset_minutes: number; due_at: string; status: 'pending' | 'sent' | 'skipped'; sent_at: string | null };

const view = (r: typeof bookingReminders.$inferSelect): ReminderView => ({ offset_minutes: r.offsetMinutes, due_at: r.dueAt.toISOString(), status: r.status, sent_at: r.sentAt?.toISOString() ?? null });

/**
 * GET /v1/bookings/{id}/reminders: a booking's reminders, earliest due first (the booking read
 * first, so an unknown booking and another owner scope answer as GET /v1/bookings/{id} does).
 * A cancelled booking has only those already sent.
 */
export async function remindersOfBooking(db: Executor, actor: AgentActor, bookingId: string, now: Date): Promise<{ booking_id: string; reminders: ReminderView[] }> {
  const booking = await getBooking(db, actor, bookingId, now);
  const rows = await db.select().from(bookingReminders).where(eq(bookingReminders.bookingId, booking.booking_id)).orderBy(asc(bookingReminders.dueAt));
  return { booking_id: booking.booking_id, reminders: rows.map(view) };
}

/** One upcoming reminder of an owner's meeting, as the dashboard lists them. */
export type UpcomingReminder = ReminderView & { booking_id: string; title: string | null; meeting_class: string | null; start: string; end: string };

/** The owner's pending reminders due from `now`, earliest first (the dashboard's "Upcoming reminders"). */
export async function upcomingReminders(db: Executor, owner: { customerId: string; ownerId: string }, now: Date, limit = 50): Promise<UpcomingReminder[]> {
  const rows = await db
    .select({ r: bookingReminders, title: claims.title, start: claims.startAt, end: claims.endAt, meetingClass: meetingClasses.name })
    .from(bookingReminders)
    .innerJoin(claims, eq(claims.id, bookingReminders.bookingId))
    .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
    .where(and(eq(bookingReminders.customerId, owner.customerId), eq(claims.ownerId, owner.ownerId), eq(bookingReminders.status, 'pending'), gte(claims.startAt, now)))
    .orderBy(asc(bookingReminders.dueAt))
    .limit(limit);
  return rows.map((x) => ({ ...view(x.r), booking_id: x.r.bookingId, title: x.title, meeting_class: x.meetingClass, start: x.start.toISOString(), end: x.end.toISOString() }));
}

/** A claim's reminders for the dashboard's booking details, earliest due first. */
export async function remindersOfClaim(db: Executor, customerId: string, claimId: string): Promise<ReminderView[]> {
  const rows = await db
    .select()
    .from(bookingReminders)
    .where(and(eq(bookingReminders.customerId, customerId), eq(bookingReminders.bookingId, claimId)))
    .orderBy(asc(bookingReminders.dueAt));
  return rows.map(view);
}
