import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { calendars, owners, type DateOverrideJson, type HardBlockJson, type OutOfOfficeJson, type Weekday, type WorkingHoursJson } from '@/db/schema';
import { normalizeEmail, parseOwnerScope } from './access';
import { audited, type AdminActor } from './adminAudit';
import { DomainError } from './errors';
import { newId } from './ids';
import { storedHardBlocks, timeZoneName, validateOwnerRules } from './scheduling';
import { requireTimeZone as storableTimeZone } from './callerZone';

export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

export type OwnerRow = typeof owners.$inferSelect;
export type OwnerView = { owner_email: string; name: string | null; time_zone: string };
export type RulesView = {
  owner_email: string;
  time_zone: string;
  working_hours: WorkingHoursJson | null;
  working_days: Weekday[];
  hard_blocks: HardBlockJson[];
  max_daily_meeting_hours: number | null;
  buffer_external_events: boolean;
  date_overrides: DateOverrideJson[];
  out_of_office: OutOfOfficeJson[];
  warnings?: string[];
};
export type RulesInput = {
  time_zone?: string;
  working_hours: Partial<WorkingHoursJson> | null;
  hard_blocks?: HardBlockJson[];
  max_daily_meeting_hours?: number | null;
  /** Meetings' buffers keep clear of provider-calendar busy time too (docs/arbitration.md "Buffers"); absent: false. */
  buffer_external_events?: boolean;
  /** Local dates whose hours replace the weekly ones (docs/arbitration.md "Date overrides"); absent: none. */
  date_overrides?: DateOverrideJson[];
  /** Inclusive local date ranges the owner is away (docs/arbitration.md "Out of office"); absent: none. */
  out_of_office?: OutOfOfficeJson[];
};

export function ownerView(o: OwnerRow): OwnerView {
  return { owner_email: o.email, name: o.name, time_zone: timeZoneName(o.timeZone) };
}

export function rulesView(o: OwnerRow): RulesView {
  const wh = o.workingHours;
  const view: RulesView = {
    owner_email: o.email,
    time_zone: timeZoneName(o.timeZone),
    working_hours: wh,
    // Not configured: no weekday restriction.
    working_days: wh ? WEEKDAYS.filter((d) => (wh[d] ?? []).length > 0) : [...WEEKDAYS],
    // The stored COUNT checkpoint is the engine's, not the owner's: the rule reads as it was given.
    hard_blocks: o.hardBlocks.map((b) => ('rrule' in b ? (({ count_checkpoint: _, ...given }) => given)(b) : b)),
    max_daily_meeting_hours: o.maxDailyMeetingHours,
    buffer_external_events: o.bufferExternalEvents,
    date_overrides: o.dateOverrides,
    out_of_office: o.outOfOffice,
  };
  if (!wh) view.warnings = ['WORKING_HOURS_NOT_CONFIGURED'];
  return view;
}

/** A new calendar owner, with the `internal` primary calendar every owner starts with. */
export async function createOwner(
  db: Executor,
  customerId: string,
  input: { email: string; name?: string | null; time_zone: string; role?: 'admin' | 'member' } & Partial<Omit<RulesInput, 'time_zone'>>,
  actor: AdminActor = null,
  now: Date = new Date(),
): Promise<OwnerRow> {
  // Schedule rules given with the owner are applied in the same transaction: an invalid rule
  // creates nobody (docs/api.md "Owners").
  const withRules = input.working_hours != null || Boolean(input.hard_blocks?.length) || input.max_daily_meeting_hours != null;
  return audited(
    db,
    actor,
    async (tx) => {
      const owner = await insertOwner(tx, customerId, input);
      if (!withRules) return owner;
      const rules = { working_hours: input.working_hours ?? null, hard_blocks: input.hard_blocks, max_daily_meeting_hours: input.max_daily_meeting_hours };
      return replaceScheduleRules(tx, customerId, owner.email, rules, now);
    },
    (o) => {
      const { working_days: _derived, warnings: _warnings, owner_email: _email, time_zone: _zone, ...rules } = rulesView(o);
      return { action: 'owner.create', customerId, owner: o, details: { ...ownerView(o), role: o.role, ...(withRules ? rules : {}) }, at: now };
    },
  );
}

async function insertOwner(
  db: Executor,
  customerId: string,
  input: { email: string; name?: string | null; time_zone: string; role?: 'admin' | 'member' },
): Promise<OwnerRow> {
  const timeZone = storableTimeZone(input.time_zone);
  const email = normalizeEmail(input.email);
  try {
    return await db.transaction(async (tx) => {
      const [owner] = await tx
        .insert(owners)
        .values({ id: newId(), customerId, email, name: input.name ?? null, timeZone, role: input.role ?? 'member' })
        .returning();
      await tx.insert(calendars).values({ id: newId(), customerId, ownerId: owner.id, type: 'internal', isPrimary: true, status: 'active', displayName: 'Internal' });
      return owner;
    });
  } catch (err) {
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'owners_customer_email_key')) {
      throw new DomainError('OWNER_ALREADY_EXISTS', `A calendar owner with email ${email} already exists`);
    }
    throw err;
  }
}

async function findOwner(db: Executor, customerId: string, email: string): Promise<OwnerRow | undefined> {
  const [owner] = await db
    .select()
    .from(owners)
    .where(and(eq(owners.customerId, customerId), eq(owners.email, normalizeEmail(email))))
    .limit(1);
  return owner;
}

/** At most this many owners are listed for an agent (GET /v1/meeting-classes `owners`). */
const OWNERS_IN_SCOPE_LIMIT = 200;

/**
 * The calendar owners an agent's owner_scope covers, by email: every owner of
 * the customer for `org:*`, the one owner for `user:<email>` (none when it does
 * not exist). At most OWNERS_IN_SCOPE_LIMIT; `truncated` says there are more.
 */
export async function ownersInScope(db: Executor, customerId: string, ownerScope: string): Promise<{ owners: OwnerView[]; truncated: boolean }> {
  const scope = parseOwnerScope(ownerScope);
  if (!scope) return { owners: [], truncated: false };
  const rows = await db
    .select()
    .from(owners)
    .where(scope.kind === 'org' ? eq(owners.customerId, customerId) : and(eq(owners.customerId, customerId), eq(owners.email, scope.email)))
    .orderBy(asc(owners.email))
    .limit(OWNERS_IN_SCOPE_LIMIT + 1);
  return { owners: rows.slice(0, OWNERS_IN_SCOPE_LIMIT).map(ownerView), truncated: rows.length > OWNERS_IN_SCOPE_LIMIT };
}

export async function getOwner(db: Executor, customerId: string, email: string): Promise<OwnerRow> {
  const owner = await findOwner(db, customerId, email);
  if (!owner) throw new DomainError('OWNER_NOT_FOUND', `No calendar owner with email ${normalizeEmail(email)}`);
  return owner;
}

/** Replace an owner's schedule rules (a weekday absent or empty is not a working day). */
export async function putScheduleRules(db: Executor, customerId: string, email: string, input: RulesInput, now: Date, actor: AdminActor = null): Promise<OwnerRow> {
  return audited(
    db,
    actor,
    (tx) => replaceScheduleRules(tx, customerId, email, input, now),
    (o) => {
      const { working_days: _derived, warnings: _warnings, ...rules } = rulesView(o);
      return { action: 'schedule_rules.replace', customerId, owner: o, details: rules, at: now };
    },
  );
}

async function replaceScheduleRules(db: Executor, customerId: string, email: string, input: RulesInput, now: Date): Promise<OwnerRow> {
  const owner = await getOwner(db, customerId, email);
  const timeZone = storableTimeZone(input.time_zone ?? owner.timeZone);
  const workingHours = input.working_hours
    ? (Object.fromEntries(WEEKDAYS.map((d) => [d, input.working_hours![d] ?? []])) as WorkingHoursJson)
    : null;
  const hardBlocks = input.hard_blocks ?? [];
  const dateOverrides = [...(input.date_overrides ?? [])].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const issues = validateOwnerRules({ timeZone, workingHours, hardBlocks, maxDailyMeetingHours: input.max_daily_meeting_hours ?? null, dateOverrides: input.date_overrides ?? [], outOfOffice: input.out_of_office ?? [] });
  if (issues.length) {
    throw new DomainError('INVALID_SCHEDULE_RULES', `${issues[0].path}: ${issues[0].message}`, { details: { fields: issues } });
  }
  const [updated] = await db
    .update(owners)
    .set({
      timeZone,
      workingHours,
      hardBlocks: storedHardBlocks(hardBlocks),
      maxDailyMeetingHours: input.max_daily_meeting_hours ?? null,
      bufferExternalEvents: input.buffer_external_events ?? false,
      dateOverrides,
      outOfOffice: [...(input.out_of_office ?? [])].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0)),
      updatedAt: now,
    })
    .where(eq(owners.id, owner.id))
    .returning();
  return updated;
}

export type OwnerListItem = OwnerView & {
  role: 'admin' | 'member';
  /** A password, or an invitation (sign-in by emailed link). */
  can_sign_in: boolean;
  has_password: boolean;
  invited_at: string | null;
  /** Working hours are set; without them public pages never offer the owner (docs/public-scheduling.md "Several hosts"). */
  has_working_hours: boolean;
  calendars: { type: string; status: string; display_name: string | null; is_primary: boolean }[];
};

/** The customer's calendar owners (by email) with their role and calendars (for the admin console). */
export async function listOwners(db: Executor, customerId: string): Promise<OwnerListItem[]> {
  const rows = await db.select().from(owners).where(eq(owners.customerId, customerId)).orderBy(asc(owners.email));
  const cals = rows.length
    ? await db.select().from(calendars).where(inArray(calendars.ownerId, rows.map((o) => o.id))).orderBy(asc(calendars.createdAt))
    : [];
  return rows.map((o) => ({
    ...ownerView(o),
    role: o.role,
    can_sign_in: o.passwordHash !== null || o.invitedAt !== null,
    has_password: o.passwordHash !== null,
    invited_at: o.invitedAt?.toISOString() ?? null,
    has_working_hours: o.workingHours !== null,
    calendars: cals
      .filter((c) => c.ownerId === o.id)
      .map((c) => ({ type: c.type, status: c.status, display_name: c.displayName, is_primary: c.isPrimary })),
  }));
}

/**
 * An admin invites an owner of the customer to the dashboard: from now on the
 * owner may sign in by emailed link (without a password). Audited as
 * owner.invite; the caller sends the link (it is a transport's secret).
 * Inviting again (a re-sent invitation) moves `invited_at`.
 */
export async function inviteOwner(db: Executor, customerId: string, email: string, now: Date, actor: AdminActor = null): Promise<OwnerRow> {
  return audited(
    db,
    actor,
    async (tx) => {
      const owner = await getOwner(tx, customerId, email);
      const [row] = await tx.update(owners).set({ invitedAt: now, updatedAt: now }).where(eq(owners.id, owner.id)).returning();
      return row;
    },
    (o) => ({ action: 'owner.invite', customerId, owner: o, details: { owner_email: o.email, role: o.role }, at: now }),
  );
}
