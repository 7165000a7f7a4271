import { and, asc, count, eq, gte, isNull } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import type { Executor } from '@/db/client';
import { bookingProposals, calendars, owners, publicLinks, type ProposalStatus } from '@/db/schema';

/**
 * What the administration console opens on (docs/dashboard.md "Overview"): the customer's
 * owners (and which of them public pages leave out, or cannot book), its public links, and the
 * requests received today in the admin's own zone, by status.
 */
export type AdminOverview = {
  owners: { total: number; without_working_hours: string[]; without_calendar: string[] };
  links: { alias: string; title: string | null }[];
  requests_today: { since: string; received: number; waiting_for_review: number; booked: number; declined: number };
};

/** Start of `now`'s local day in `timeZone`. */
function startOfDay(now: Date, timeZone: string): Date {
  const day = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timeZone).toPlainDate();
  return new Date(day.toZonedDateTime({ timeZone }).epochMilliseconds);
}

/** The overview for the admin `adminOwnerId` ("today" is the admin's own day). */
export async function adminOverview(db: Executor, customerId: string, adminOwnerId: string, now: Date): Promise<AdminOverview> {
  const [admin] = await db.select({ timeZone: owners.timeZone }).from(owners).where(eq(owners.id, adminOwnerId));
  const since = startOfDay(now, admin?.timeZone ?? 'UTC');
  const [ownerRows, calendarRows, linkRows, requestRows] = await Promise.all([
    db.select({ id: owners.id, email: owners.email, workingHours: owners.workingHours }).from(owners).where(eq(owners.customerId, customerId)).orderBy(asc(owners.email)),
    db.select({ ownerId: calendars.ownerId, status: calendars.status }).from(calendars).innerJoin(owners, eq(owners.id, calendars.ownerId)).where(eq(owners.customerId, customerId)),
    db.select({ alias: publicLinks.alias, title: publicLinks.title }).from(publicLinks).where(and(eq(publicLinks.customerId, customerId), isNull(publicLinks.deletedAt))).orderBy(asc(publicLinks.alias)),
    db
      .select({ status: bookingProposals.status, n: count() })
      .from(bookingProposals)
      .where(and(eq(bookingProposals.customerId, customerId), gte(bookingProposals.createdAt, since)))
      .groupBy(bookingProposals.status),
  ]);
  const usable = new Set(calendarRows.filter((c) => c.status === 'active').map((c) => c.ownerId));
  const byStatus = (s: ProposalStatus) => requestRows.find((r) => r.status === s)?.n ?? 0;
  return {
    owners: {
      total: ownerRows.length,
      without_working_hours: ownerRows.filter((o) => o.workingHours === null).map((o) => o.email),
      without_calendar: ownerRows.filter((o) => !usable.has(o.id)).map((o) => o.email),
    },
    links: linkRows,
    requests_today: {
      since: since.toISOString(),
      received: requestRows.reduce((sum, r) => sum + r.n, 0),
      waiting_for_review: byStatus('pending_review'),
      booked: byStatus('booked'),
      declined: byStatus('declined'),
    },
  };
}
