import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { audiences, meetingClasses, owners, publicMeetingTypes } from '@/db/schema';
import { assertOwnerInScope, normalizeEmail } from '../../access';
import { resolvePool } from '../../pools/poolService';
import { audited } from '../../adminAudit';
import { DomainError, invalidField } from '../../errors';
import { getMeetingClass } from '../../meetingClassService';
import { newId } from '../../ids';
import { afterCursor, allOf, notFound, pageOf, type Actor, type Page, type PageQuery } from './common';
import { getLink } from './links';
import { meetingTypeChange } from './meetingTypeAudit';
import { duplicateSlug, rethrowSlug } from './meetingTypeSlug';
import { videoSetting, type HostMode, type MeetingClassRow, type MeetingTypeRecord, type MeetingTypeRow, type PublicPreemptPolicy, type VideoSetting, type Visibility } from './meetingTypeView';
export * from './meetingTypeView';

/** docs/public-scheduling.md "Several hosts": a collective type names 2 to 20 owners. */
const MIN_HOSTS = 2;
const MAX_HOSTS = 20;

export type MeetingTypeInput = {
  slug: string;
  title: string;
  duration_minutes: number[];
  meeting_class: string;
  attendee_limit?: number | null;
  public_preempt_policy?: PublicPreemptPolicy;
  visibility?: Visibility;
  audience?: string | null;
  enabled?: boolean;
  published?: boolean;
  credential_skips_verification?: boolean;
  description?: string | null;
  location?: string | null;
  video?: { provider: VideoSetting['provider']; url?: string | null } | null;
  min_notice_hours?: number;
  /** docs/arbitration.md "Buffers" (0-240 minutes). */
  buffer_before_minutes?: number;
  buffer_after_minutes?: number;
  /** docs/reliability.md "Reminders": minutes before the start; null: the meeting class's. */
  reminder_offsets_minutes?: number[] | null;
  book_instantly?: boolean;
  /** docs/public-scheduling.md "Repeating weekly": 2 to 52; null: not offered. */
  repeat_weekly_max_weeks?: number | null;
  /** single (default): the link's owner; collective: every owner of host_emails; pool: one member of `pool`. */
  host_mode?: HostMode;
  host_emails?: string[] | null;
  /** A pool's id or name. */
  pool?: string | null;
};
export type MeetingTypePatch = Partial<MeetingTypeInput>;

function selectTypes(db: Executor) {
  return db
    .select({ id: publicMeetingTypes.id, type: publicMeetingTypes, meetingClass: meetingClasses, audienceName: audiences.name })
    .from(publicMeetingTypes)
    .innerJoin(meetingClasses, eq(meetingClasses.id, publicMeetingTypes.meetingClassId))
    .leftJoin(audiences, eq(audiences.id, publicMeetingTypes.audienceId));
}

/** The customer's audience with this name, or not_found. */
export async function audienceByName(db: Executor, customerId: string, name: string): Promise<{ id: string; name: string }> {
  const [row] = await db
    .select({ id: audiences.id, name: audiences.name })
    .from(audiences)
    .where(and(eq(audiences.customerId, customerId), eq(audiences.name, name)))
    .limit(1);
  if (!row) throw notFound(`Audience ${JSON.stringify(name)}`);
  return row;
}

function invalidRequest(path: string, message: string): DomainError {
  return invalidField(path, message, `${path}: ${message}`);
}

/** Resolve and check the merged state of a type (create, or current + patch) into column values. */
async function resolveType(db: Executor, customerId: string, actor: Actor, merged: MeetingTypeInput, audienceGiven: boolean) {
  const meetingClass = await getMeetingClass(db, customerId, merged.meeting_class);
  const policy = merged.public_preempt_policy ?? 'inherit';
  if (policy === 'preempt_lower' && meetingClass.preemptPolicy === 'never') {
    throw new DomainError(
      'invalid_public_preempt_policy',
      `public_preempt_policy preempt_lower is more flexible than meeting class ${meetingClass.name} (never); use inherit or never`,
    );
  }
  const visibility = merged.visibility ?? 'public';
  let audience: { id: string; name: string } | null = null;
  if (visibility === 'audience') {
    if (!merged.audience) throw invalidRequest('audience', 'visibility audience needs the name of an audience');
    audience = await audienceByName(db, customerId, merged.audience);
  } else if (audienceGiven && merged.audience) {
    throw invalidRequest('audience', 'audience is allowed only with visibility audience');
  }
  const durations = [...new Set(merged.duration_minutes)].sort((a, b) => a - b);
  const hosts = await resolveHosts(db, customerId, actor, merged);
  // docs/public-scheduling.md "Repeating weekly": one host's series only.
  if (merged.repeat_weekly_max_weeks != null && hosts.mode !== 'single') throw invalidRequest('repeat_weekly_max_weeks', 'only a meeting type with a single host may offer repeating weekly');
  return {
    meetingClass,
    audienceName: audience?.name ?? null,
    hostEmails: hosts.hostEmails,
    values: {
      slug: merged.slug,
      title: merged.title,
      durationMinutes: durations,
      meetingClassId: meetingClass.id,
      attendeeLimit: merged.attendee_limit ?? null,
      publicPreemptPolicy: policy,
      visibility,
      audienceId: audience?.id ?? null,
      enabled: merged.enabled ?? true,
      published: merged.published ?? true,
      credentialSkipsVerification: merged.credential_skips_verification ?? false,
      description: merged.description ?? null,
      location: merged.location ?? null,
      videoProvider: merged.video?.provider ?? null,
      videoUrl: merged.video?.provider === 'link' ? (merged.video.url ?? null) : null,
      minNoticeHours: merged.min_notice_hours ?? 0,
      bufferBeforeMinutes: merged.buffer_before_minutes ?? 0,
      bufferAfterMinutes: merged.buffer_after_minutes ?? 0,
      reminderOffsetsMinutes: merged.reminder_offsets_minutes ? [...new Set(merged.reminder_offsets_minutes)].sort((a, b) => b - a) : null,
      bookInstantly: merged.book_instantly ?? false,
      repeatWeeklyMaxWeeks: merged.repeat_weekly_max_weeks ?? null,
      hostMode: hosts.mode,
      hostOwnerIds: hosts.hostOwnerIds,
      poolId: hosts.poolId,
    },
  };
}

/**
 * The hosts of a type (docs/public-scheduling.md "Several hosts"): collective needs 2 to 20
 * distinct owners of the same customer (an unknown owner and another customer's answer alike),
 * pool a pool of the customer; single takes neither. An agent's owner_scope must cover every
 * host it names (and every member of the pool), as for a group claim (docs/groups.md).
 */
async function resolveHosts(db: Executor, customerId: string, actor: Actor, merged: MeetingTypeInput): Promise<{ mode: HostMode; hostOwnerIds: string[] | null; hostEmails: string[]; poolId: string | null }> {
  const mode = merged.host_mode ?? 'single';
  if (mode !== 'collective' && merged.host_emails?.length) throw invalidRequest('host_emails', 'host_emails is allowed only with host_mode collective');
  if (mode !== 'pool' && merged.pool) throw invalidRequest('pool', 'pool is allowed only with host_mode pool');
  if (mode === 'single') return { mode, hostOwnerIds: null, hostEmails: [], poolId: null };
  if (mode === 'pool') {
    if (!merged.pool) throw invalidRequest('pool', 'host_mode pool needs a pool (its id or name)');
    const pool = await resolvePool(db, customerId, actor, merged.pool);
    if (!pool.members.length) throw invalidRequest('pool', `the pool ${pool.name} has no members`);
    return { mode, hostOwnerIds: null, hostEmails: [], poolId: pool.id };
  }
  const emails = [...new Set((merged.host_emails ?? []).map(normalizeEmail))];
  if (emails.length < MIN_HOSTS) throw invalidRequest('host_emails', `host_mode collective needs ${MIN_HOSTS} to ${MAX_HOSTS} distinct owners`);
  if (emails.length > MAX_HOSTS) throw invalidRequest('host_emails', `at most ${MAX_HOSTS} hosts`);
  if (actor?.kind === 'agent') for (const e of emails) assertOwnerInScope(actor, e);
  const rows = await db.select({ id: owners.id, email: owners.email }).from(owners).where(and(eq(owners.customerId, customerId), inArray(owners.email, emails)));
  const byEmail = new Map(rows.map((r) => [r.email, r.id]));
  const unknown = emails.find((e) => !byEmail.has(e));
  if (unknown) throw invalidRequest('host_emails', `${unknown} is not an owner of this customer`);
  return { mode, hostOwnerIds: emails.map((e) => byEmail.get(e)!), hostEmails: emails, poolId: null };
}

/** The emails of collective types' hosts, in each type's order (owners deleted since drop out). */
async function withHosts<R extends { type: MeetingTypeRow; meetingClass: MeetingClassRow; audienceName: string | null }>(db: Executor, rows: R[]): Promise<(R & { hostEmails: string[]; hostNames: (string | null)[] })[]> {
  const ids = [...new Set(rows.flatMap((r) => r.type.hostOwnerIds ?? []))];
  const found = ids.length ? await db.select({ id: owners.id, email: owners.email, name: owners.name }).from(owners).where(inArray(owners.id, ids)) : [];
  const byId = new Map(found.map((o) => [o.id, o]));
  return rows.map((r) => {
    const hosts = (r.type.hostOwnerIds ?? []).flatMap((id) => byId.get(id) ?? []);
    return { ...r, hostEmails: hosts.map((h) => h.email), hostNames: hosts.map((h) => h.name) };
  });
}

export async function createMeetingType(db: Executor, customerId: string, actor: Actor, linkId: string, input: MeetingTypeInput, now: Date): Promise<MeetingTypeRecord> {
  return audited(
    db,
    actor,
    async (tx) => ({ r: await insertMeetingType(tx, customerId, actor, linkId, input, now), link: await getLink(tx, customerId, actor, linkId) }),
    ({ r, link }) => meetingTypeChange('public_meeting_type.create', link, r, now),
  ).then(({ r }) => r);
}

async function insertMeetingType(db: Executor, customerId: string, actor: Actor, linkId: string, input: MeetingTypeInput, now: Date): Promise<MeetingTypeRecord> {
  const { link } = await getLink(db, customerId, actor, linkId);
  const r = await resolveType(db, customerId, actor, input, input.audience !== undefined);
  if (await findMeetingType(db, link.id, input.slug)) throw duplicateSlug(input.slug);
  try {
    const [type] = await db
      .insert(publicMeetingTypes)
      .values({ id: newId(), customerId, linkId: link.id, ...r.values, createdAt: now, updatedAt: now })
      .returning();
    return { type, meetingClass: r.meetingClass, audienceName: r.audienceName, hostEmails: r.hostEmails };
  } catch (err) {
    rethrowSlug(err, input.slug);
  }
}

/** A type on a link the caller may manage; unknown slugs are not_found. */
export async function getMeetingType(db: Executor, customerId: string, actor: Actor, linkId: string, slug: string): Promise<MeetingTypeRecord> {
  const { link } = await getLink(db, customerId, actor, linkId);
  const found = await findMeetingType(db, link.id, slug);
  if (!found) throw notFound('Public meeting type');
  return found;
}

/** Change any field; the result is checked as a whole (class policy, audience, slug). */
export async function updateMeetingType(
  db: Executor,
  customerId: string,
  actor: Actor,
  linkId: string,
  slug: string,
  patch: MeetingTypePatch,
  now: Date,
): Promise<MeetingTypeRecord> {
  return audited(
    db,
    actor,
    async (tx) => {
      const before = await getMeetingType(tx, customerId, actor, linkId, slug);
      return { before, r: await changeMeetingType(tx, customerId, actor, linkId, slug, patch, now), link: await getLink(tx, customerId, actor, linkId) };
    },
    ({ before, r, link }) => meetingTypeChange('public_meeting_type.update', link, r, now, before),
  ).then(({ r }) => r);
}

async function changeMeetingType(
  db: Executor,
  customerId: string,
  actor: Actor,
  linkId: string,
  slug: string,
  patch: MeetingTypePatch,
  now: Date,
): Promise<MeetingTypeRecord> {
  const current = await getMeetingType(db, customerId, actor, linkId, slug);
  const t = current.type;
  const visibility = patch.visibility ?? t.visibility;
  const merged: MeetingTypeInput = {
    slug: patch.slug ?? t.slug,
    title: patch.title ?? t.title,
    duration_minutes: patch.duration_minutes ?? t.durationMinutes,
    meeting_class: patch.meeting_class ?? current.meetingClass.name,
    attendee_limit: patch.attendee_limit !== undefined ? patch.attendee_limit : t.attendeeLimit,
    public_preempt_policy: patch.public_preempt_policy ?? t.publicPreemptPolicy,
    visibility,
    // Leaving visibility audience drops the audience; staying keeps it unless replaced.
    audience: patch.audience !== undefined ? patch.audience : visibility === 'audience' ? current.audienceName : null,
    enabled: patch.enabled ?? t.enabled,
    published: patch.published ?? t.published,
    credential_skips_verification: patch.credential_skips_verification ?? t.credentialSkipsVerification,
    description: patch.description !== undefined ? patch.description : t.description,
    location: patch.location !== undefined ? patch.location : t.location,
    video: patch.video !== undefined ? patch.video : videoSetting(t),
    min_notice_hours: patch.min_notice_hours ?? t.minNoticeHours,
    buffer_before_minutes: patch.buffer_before_minutes ?? t.bufferBeforeMinutes,
    buffer_after_minutes: patch.buffer_after_minutes ?? t.bufferAfterMinutes,
    reminder_offsets_minutes: patch.reminder_offsets_minutes !== undefined ? patch.reminder_offsets_minutes : t.reminderOffsetsMinutes,
    book_instantly: patch.book_instantly ?? t.bookInstantly,
    repeat_weekly_max_weeks: patch.repeat_weekly_max_weeks !== undefined ? patch.repeat_weekly_max_weeks : t.repeatWeeklyMaxWeeks,
    host_mode: patch.host_mode ?? t.hostMode,
    // Leaving a mode drops its hosts; staying keeps them unless replaced.
    host_emails: patch.host_emails !== undefined ? patch.host_emails : (patch.host_mode ?? t.hostMode) === 'collective' ? current.hostEmails : null,
    pool: patch.pool !== undefined ? patch.pool : (patch.host_mode ?? t.hostMode) === 'pool' ? t.poolId : null,
  };
  const r = await resolveType(db, customerId, actor, merged, patch.audience !== undefined);
  if (merged.slug !== t.slug && (await findMeetingType(db, t.linkId, merged.slug))) throw duplicateSlug(merged.slug);
  try {
    const [type] = await db
      .update(publicMeetingTypes)
      .set({ ...r.values, updatedAt: now })
      .where(eq(publicMeetingTypes.id, t.id))
      .returning();
    return { type, meetingClass: r.meetingClass, audienceName: r.audienceName, hostEmails: r.hostEmails };
  } catch (err) {
    rethrowSlug(err, merged.slug);
  }
}

/** A page of a link's types (admin view: every type, whatever its visibility or state). */
export async function listLinkMeetingTypes(db: Executor, customerId: string, actor: Actor, linkId: string, q: PageQuery): Promise<Page<MeetingTypeRecord & { id: string }>> {
  const { link } = await getLink(db, customerId, actor, linkId);
  const rows = await selectTypes(db)
    .where(allOf(eq(publicMeetingTypes.linkId, link.id), afterCursor(publicMeetingTypes.id, q.cursor)))
    .orderBy(asc(publicMeetingTypes.id))
    .limit(q.limit + 1);
  const page = pageOf(rows, q.limit);
  return { items: await withHosts(db, page.items), next_cursor: page.next_cursor };
}

/** Requester side: the type with this slug on a link (any state; the caller applies visibility), or null. */
export async function findMeetingType(db: Executor, linkId: string, slug: string): Promise<MeetingTypeRecord | null> {
  const [found] = await selectTypes(db)
    .where(and(eq(publicMeetingTypes.linkId, linkId), eq(publicMeetingTypes.slug, slug)))
    .limit(1);
  return found ? (await withHosts(db, [{ type: found.type, meetingClass: found.meetingClass, audienceName: found.audienceName }]))[0] : null;
}

/** Requester side: every type of a link (any state), oldest first. */
export async function listMeetingTypes(db: Executor, linkId: string): Promise<MeetingTypeRecord[]> {
  const rows = await selectTypes(db).where(eq(publicMeetingTypes.linkId, linkId)).orderBy(asc(publicMeetingTypes.id));
  return withHosts(db, rows.map((r) => ({ type: r.type, meetingClass: r.meetingClass, audienceName: r.audienceName })));
}
