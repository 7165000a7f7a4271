import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendars, claims, meetingClasses, owners, type AttendeeJson } from '@/db/schema';
import { assertOwnerInScope, normalizeEmail, type AgentActor } from '../access';
import { afterCommit } from '../afterCommit';
import { mailRemovedAttendees } from '../calendars/invitations';
import { DomainError } from '../errors';
import { isUuid } from '../ids';
import { writeAudit } from '../audit';
import { lockOwner } from './claimTarget';
import { assertMayChange } from './moveRules';
import { bookingView, type BookingView } from './views';

/** What PATCH /v1/bookings/{id} may change: the details, never the time (that is a reschedule). */
export type BookingEdit = { title?: string | null; description?: string | null; attendees?: { email: string; name?: string }[] };

/**
 * PATCH /v1/bookings/{id}: a confirmed booking's title, description and attendees change in
 * one transaction (the owner locked as for any change of a booking, then the booking). The
 * booking's revision (`sequence`) grows, so the invitation sweep mails whom it concerns
 * (people added an invitation, people kept an update with the same UID when the title
 * changed: docs/calendars.md "Invitations") and the provider write-back updates its event;
 * people removed get a cancellation after commit. Attendees who stay keep
 * their response. One audit row `booking.update` naming what changed. Only the booking's own
 * agent, or one with manage_customer.
 */
export async function updateBooking(db: Db, actor: AgentActor, bookingId: string, edit: BookingEdit, now: Date, idempotencyKey: string | null): Promise<BookingView> {
  if (!isUuid(bookingId)) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
  const out = await db.transaction(async (tx) => {
    const find = () =>
      tx
        .select({ row: claims, ownerEmail: owners.email, ownerName: owners.name, timeZone: owners.timeZone, meetingClass: meetingClasses.name, calendarType: calendars.type })
        .from(claims)
        .innerJoin(owners, eq(owners.id, claims.ownerId))
        .leftJoin(meetingClasses, eq(meetingClasses.id, claims.meetingClassId))
        .leftJoin(calendars, eq(calendars.id, claims.calendarId))
        .where(and(eq(claims.id, bookingId.toLowerCase()), eq(claims.customerId, actor.customerId), eq(claims.kind, 'booking')));
    const [first] = await find();
    if (!first) throw new DomainError('BOOKING_NOT_FOUND', 'Booking not found');
    assertOwnerInScope(actor, first.ownerEmail);
    await lockOwner(tx, first.row.ownerId);
    const [b] = await find().for('update', { of: claims });
    assertMayChange(actor, b.row, 'edit');
    if (b.row.status !== 'confirmed') throw new DomainError('BOOKING_NOT_ACTIVE', `The booking is ${b.row.status}; only a confirmed booking can be edited`);
    const before = b.row.attendees ?? [];
    let attendees: AttendeeJson[] = before;
    let added: string[] = [];
    let removed: AttendeeJson[] = [];
    if (edit.attendees) {
      const kept = new Map(before.map((a) => [a.email.toLowerCase(), a]));
      const seen = new Set<string>();
      attendees = [];
      for (const a of edit.attendees) {
        const email = normalizeEmail(a.email);
        if (seen.has(email)) continue;
        seen.add(email);
        const old = kept.get(email);
        attendees.push(old ? { ...old, name: a.name ?? old.name ?? null } : { email, name: a.name ?? null, response: 'needs_action' });
      }
      added = attendees.filter((a) => !kept.has(a.email.toLowerCase())).map((a) => a.email);
      removed = before.filter((a) => !seen.has(a.email.toLowerCase()));
    }
    const changed: Record<string, unknown> = {};
    if (edit.title !== undefined && edit.title !== b.row.title) changed.title = edit.title;
    if (edit.description !== undefined && edit.description !== b.row.description) changed.description = edit.description;
    if (added.length || removed.length || (edit.attendees && attendees.some((a, i) => a.name !== before[i]?.name))) changed.attendees = { added, removed: removed.map((a) => a.email) };
    const view = (row: typeof b.row) => bookingView(row, { ownerEmail: b.ownerEmail, timeZone: b.timeZone, meetingClass: b.meetingClass, calendarType: b.calendarType ?? 'internal' });
    // Nothing changes: no revision, no audit row, no mail.
    if (!Object.keys(changed).length) return { view: view(b.row), removed: [], row: b.row, owner: b };
    const [row] = await tx
      .update(claims)
      .set({
        ...(edit.title !== undefined ? { title: edit.title } : {}),
        ...(edit.description !== undefined ? { description: edit.description } : {}),
        ...(edit.attendees ? { attendees, externalAccepted: attendees.some((a) => a.external && a.response === 'accepted') } : {}),
        sequence: sql`${claims.sequence} + 1`,
        updatedAt: now,
      })
      .where(eq(claims.id, b.row.id))
      .returning();
    await writeAudit(tx, {
      customerId: actor.customerId,
      agentId: actor.agentId,
      ownerId: row.ownerId,
      ownerEmail: b.ownerEmail,
      action: 'booking.update',
      outcome: 'accept',
      meetingClass: b.meetingClass,
      start: row.startAt,
      end: row.endAt,
      holdId: row.holdId,
      bookingId: row.id,
      idempotencyKey,
      details: changed,
      at: now,
    });
    return { view: view(row), removed, row, owner: b };
  });
  // After commit (mail never holds a transaction; the REST wrapper's included: ../afterCommit.ts): people removed hear the meeting is off for them.
  if (out.removed.length) await afterCommit(db, (db) => mailRemovedAttendees(db, { row: out.row, ownerEmail: out.owner.ownerEmail, ownerName: out.owner.ownerName, ownerTimeZone: out.owner.timeZone }, out.removed, now));
  return out.view;
}
