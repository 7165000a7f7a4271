import { and, asc, count, eq, exists, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import type { Executor } from '@/db/client';
import { allocations, audienceMembers, audiences, bookingProposals, claims, owners, publicLinks, publicMeetingTypes, requesterIdentities, verifiedDomains } from '@/db/schema';
import { assertOwnerInScope } from '../../access';
import { audited, type AdminAction, type AdminChange } from '../../adminAudit';
import { DomainError } from '../../errors';
import { isUuid, newId } from '../../ids';
import { afterCursor, allOf, notFound, pageOf, scopedOwnerEmail, type Actor, type Page, type PageQuery } from './common';
import { getLink } from './links';
import { audienceByName, getMeetingType } from './meetingTypes';

export type AllocationPeriod = 'day' | 'week' | 'month';
export type AllocationRecord = { allocation: typeof allocations.$inferSelect; slug: string; audienceName: string | null };
export type AllocationView = { allocation_id: string; link_id: string; slug: string; audience: string | null; limit: number; period: AllocationPeriod; created_at: string };

export function allocationView(r: AllocationRecord): AllocationView {
  const a = r.allocation;
  return { allocation_id: a.id, link_id: a.linkId, slug: r.slug, audience: r.audienceName, limit: a.limit, period: a.period, created_at: a.createdAt.toISOString() };
}

/** The audit entry of a change to an allocation, about the owner of its link. */
async function allocationChange(db: Executor, action: AdminAction, r: AllocationRecord, now: Date): Promise<AdminChange> {
  const a = r.allocation;
  const [owner] = await db.select({ id: owners.id, email: owners.email }).from(publicLinks).innerJoin(owners, eq(owners.id, publicLinks.ownerId)).where(eq(publicLinks.id, a.linkId));
  return { action, customerId: a.customerId, owner, details: allocationView(r), at: now };
}

/** Cap bookings through one meeting type per owner-local period, for everyone or for one audience's members. */
export async function createAllocation(
  db: Executor,
  customerId: string,
  actor: Actor,
  input: { link_id: string; slug: string; audience?: string | null; limit: number; period: AllocationPeriod },
  now: Date,
): Promise<AllocationRecord> {
  return audited(
    db,
    actor,
    async (tx) => {
      const r = await insertAllocation(tx, customerId, actor, input, now);
      return { r, change: await allocationChange(tx, 'allocation.create', r, now) };
    },
    ({ change }) => change,
  ).then(({ r }) => r);
}

async function insertAllocation(
  db: Executor,
  customerId: string,
  actor: Actor,
  input: { link_id: string; slug: string; audience?: string | null; limit: number; period: AllocationPeriod },
  now: Date,
): Promise<AllocationRecord> {
  const { type } = await getMeetingType(db, customerId, actor, input.link_id, input.slug);
  const audience = input.audience ? await audienceByName(db, customerId, input.audience) : null;
  const [allocation] = await db
    .insert(allocations)
    .values({ id: newId(), customerId, linkId: type.linkId, meetingTypeId: type.id, audienceId: audience?.id ?? null, limit: input.limit, period: input.period, createdAt: now })
    .returning();
  return { allocation, slug: type.slug, audienceName: audience?.name ?? null };
}

function selectAllocations(db: Executor) {
  return db
    .select({ id: allocations.id, allocation: allocations, slug: publicMeetingTypes.slug, audienceName: audiences.name, ownerEmail: owners.email })
    .from(allocations)
    .innerJoin(publicMeetingTypes, eq(publicMeetingTypes.id, allocations.meetingTypeId))
    .innerJoin(publicLinks, and(eq(publicLinks.id, allocations.linkId), isNull(publicLinks.deletedAt)))
    .innerJoin(owners, eq(owners.id, publicLinks.ownerId))
    .leftJoin(audiences, eq(audiences.id, allocations.audienceId));
}

/** Allocations on live links in the caller's scope, optionally of one link. */
export async function listAllocations(db: Executor, customerId: string, actor: Actor, q: PageQuery & { link_id?: string }): Promise<Page<AllocationRecord & { id: string }>> {
  if (q.link_id) await getLink(db, customerId, actor, q.link_id);
  const only = scopedOwnerEmail(actor);
  const rows = await selectAllocations(db)
    .where(
      allOf(
        eq(allocations.customerId, customerId),
        q.link_id ? eq(allocations.linkId, q.link_id) : undefined,
        only ? eq(owners.email, only) : undefined,
        afterCursor(allocations.id, q.cursor),
      ),
    )
    .orderBy(asc(allocations.id))
    .limit(q.limit + 1);
  return pageOf(rows, q.limit);
}

export async function deleteAllocation(db: Executor, customerId: string, actor: Actor, allocationId: string, now: Date): Promise<AllocationRecord> {
  return audited(
    db,
    actor,
    async (tx) => {
      const r = await removeAllocation(tx, customerId, actor, allocationId);
      return { r, change: await allocationChange(tx, 'allocation.delete', r, now) };
    },
    ({ change }) => change,
  ).then(({ r }) => r);
}

async function removeAllocation(db: Executor, customerId: string, actor: Actor, allocationId: string): Promise<AllocationRecord> {
  if (!isUuid(allocationId)) throw notFound('Allocation');
  const [found] = await selectAllocations(db)
    .where(and(eq(allocations.id, allocationId), eq(allocations.customerId, customerId)))
    .limit(1);
  if (!found) throw notFound('Allocation');
  if (actor?.kind === 'agent') assertOwnerInScope(actor, found.ownerEmail);
  await db.delete(allocations).where(eq(allocations.id, found.allocation.id));
  return found;
}

/** The owner-local day, ISO week (Monday first) or calendar month containing `at`, as UTC instants. */
export function periodBounds(period: AllocationPeriod, timeZone: string, at: Date): { start: Date; end: Date } {
  const date = Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(timeZone).toPlainDate();
  const first = period === 'day' ? date : period === 'week' ? date.subtract({ days: date.dayOfWeek - 1 }) : date.with({ day: 1 });
  const next = period === 'day' ? first.add({ days: 1 }) : period === 'week' ? first.add({ weeks: 1 }) : first.add({ months: 1 });
  const instant = (d: Temporal.PlainDate) => new Date(d.toZonedDateTime({ timeZone }).epochMilliseconds);
  return { start: instant(first), end: instant(next) };
}

/**
 * Requester side, when a public proposal is approved (call it inside the
 * owner-locked booking transaction, BEFORE inserting the booking): every
 * allocation of the meeting type that applies to this requester (no
 * audience, or an audience in `audienceIds`) counts the confirmed public
 * bookings made through the type (claims with source `public` whose
 * `proposal_id` names a proposal of this type) that start in the period
 * containing `at`; an audience allocation counts only bookings whose
 * requester (identity email, else contact email) is a member. Reaching the
 * limit throws 409 booking_limit_exceeded. `now` is accepted for symmetry
 * with the other decisions; periods are defined by `at`.
 */
export async function checkAllocation(
  db: Executor,
  input: { meetingTypeId: string; audienceIds: readonly string[]; ownerTimeZone: string; at: Date; now?: Date },
): Promise<void> {
  const rows = await db
    .select({ allocation: allocations, ownerId: publicLinks.ownerId })
    .from(allocations)
    .innerJoin(publicLinks, eq(publicLinks.id, allocations.linkId))
    .where(eq(allocations.meetingTypeId, input.meetingTypeId));
  for (const { allocation: a, ownerId } of rows) {
    if (a.audienceId && !input.audienceIds.includes(a.audienceId)) continue;
    const n = await countAllocationUse(db, a, ownerId, periodBounds(a.period, input.ownerTimeZone, input.at));
    if (n >= a.limit) {
      throw new DomainError('booking_limit_exceeded', `The booking limit for this meeting type is reached for this ${a.period}`);
    }
  }
}

/**
 * How many bookings count against allocation `a` in the period [start, end):
 * the confirmed public bookings through its meeting type that start in the
 * period; for an audience allocation only those whose requester (identity
 * email, else contact email) is a member. The one count both
 * `checkAllocation` and the console's usage use.
 */
async function countAllocationUse(db: Executor, a: typeof allocations.$inferSelect, ownerId: string, period: { start: Date; end: Date }): Promise<number> {
  const requester = sql`lower(coalesce(${requesterIdentities.email}, ${bookingProposals.requesterEmail}))`;
  // audienceMembership's rule, as a correlated subquery over each counted booking's requester.
  const member = a.audienceId
    ? exists(
        db
          .select({ one: sql`1` })
          .from(audienceMembers)
          .leftJoin(verifiedDomains, eq(verifiedDomains.id, audienceMembers.domainId))
          .where(
            and(
              eq(audienceMembers.audienceId, a.audienceId),
              or(eq(audienceMembers.email, requester), and(eq(verifiedDomains.status, 'verified'), eq(verifiedDomains.domain, sql`split_part(${requester}, '@', 2)`))),
            ),
          ),
      )
    : undefined;
  // Driven by claims_owner_start_idx (owner, start); proposals joined by primary key.
  const [{ n }] = await db
    .select({ n: count() })
    .from(claims)
    .innerJoin(bookingProposals, eq(bookingProposals.id, claims.proposalId))
    .leftJoin(requesterIdentities, eq(requesterIdentities.id, bookingProposals.requesterIdentityId))
    .where(
      allOf(
        eq(claims.ownerId, ownerId),
        gte(claims.startAt, period.start),
        lt(claims.startAt, period.end),
        eq(claims.kind, 'booking'),
        eq(claims.status, 'confirmed'),
        eq(claims.source, 'public'),
        eq(bookingProposals.meetingTypeId, a.meetingTypeId),
        member,
      ),
    );
  return n;
}

export type AllocationUsage = { used: number; limit: number; period_start: string; period_end: string; time_zone: string };

/**
 * The current use of each allocation: what `checkAllocation` would count now
 * for a booking in the period containing `now` (the link owner's day, week or
 * month). Keyed by allocation id.
 */
export async function allocationUsage(db: Executor, customerId: string, allocationIds: readonly string[], now: Date): Promise<Map<string, AllocationUsage>> {
  const out = new Map<string, AllocationUsage>();
  if (!allocationIds.length) return out;
  const rows = await db
    .select({ allocation: allocations, ownerId: owners.id, timeZone: owners.timeZone })
    .from(allocations)
    .innerJoin(publicLinks, eq(publicLinks.id, allocations.linkId))
    .innerJoin(owners, eq(owners.id, publicLinks.ownerId))
    .where(and(eq(allocations.customerId, customerId), inArray(allocations.id, [...allocationIds])));
  for (const { allocation: a, ownerId, timeZone } of rows) {
    const period = periodBounds(a.period, timeZone, now);
    const used = await countAllocationUse(db, a, ownerId, period);
    out.set(a.id, { used, limit: a.limit, period_start: period.start.toISOString(), period_end: period.end.toISOString(), time_zone: timeZone });
  }
  return out;
}
