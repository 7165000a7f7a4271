import { Temporal } from 'temporal-polyfill';
import { and, eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { calendars, claims, owners, type Permission } from '@/db/schema';
import { createAgent, mintApiKey } from '@/server/domain/agentService';
import { api, uniqueEmail, type ApiOptions, type ApiResponse, type TestCustomer } from '../../helpers/app';

/**
 * A client address per test file (module state is per file): the global
 * 600/min per-IP limit of admin and read endpoints is shared through Redis on
 * the PostgreSQL project, so files must not share one address.
 */
export const FILE_IP = `10.${rnd()}.${rnd()}.${rnd()}`;
function rnd() {
  return Math.floor(Math.random() * 254) + 1;
}

/** `api()` from this file's client address. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field, as with api()
export function call<T = any>(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  return api<T>(method, path, { ip: FILE_IP, ...opts });
}

export const STANDARD_CLASSES = [
  { name: 'external', priority: 50 },
  { name: 'internal', priority: 30 },
  { name: 'focus', priority: 10 },
  { name: 'guarded', priority: 40, preempt_policy: 'never' },
];

/**
 * An owner with Mon-Fri 09:00-17:00 in `timeZone` and the standard classes
 * (created once per customer). Returns the owner's email.
 */
export async function setupOwner(
  admin: TestCustomer,
  opts: { timeZone?: string; workingHours?: Record<string, { start: string; end: string }[]> | null; hardBlocks?: unknown[]; maxDailyMeetingHours?: number | null } = {},
): Promise<string> {
  const email = uniqueEmail();
  const tz = opts.timeZone ?? 'UTC';
  const created = await call('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: tz } });
  if (created.status !== 201) throw new Error(created.text);
  const nineToFive = [{ start: '09:00', end: '17:00' }];
  const workingHours = opts.workingHours === undefined ? { mon: nineToFive, tue: nineToFive, wed: nineToFive, thu: nineToFive, fri: nineToFive } : opts.workingHours;
  const rules = await call('PUT', '/v1/schedule-rules', {
    key: admin.key,
    body: { owner_email: email, working_hours: workingHours, hard_blocks: opts.hardBlocks ?? [], max_daily_meeting_hours: opts.maxDailyMeetingHours ?? null },
  });
  if (rules.status !== 200) throw new Error(rules.text);
  for (const c of STANDARD_CLASSES) await call('POST', '/v1/meeting-classes', { key: admin.key, body: c }); // 409 when present: fine
  return email;
}

const DAYS = { mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6, sun: 7 } as const;

/** A day at least a week ahead (so tests never touch the past), and UTC ISO strings for local times on it. */
export function nextWeekday(day: keyof typeof DAYS, timeZone: string, weeksAhead = 1) {
  const today = Temporal.Now.plainDateISO(timeZone);
  const delta = (DAYS[day] - today.dayOfWeek + 7) % 7;
  const date = today.add({ days: delta + 7 * weeksAhead });
  return {
    date,
    at(hhmm: string): string {
      const [h, m] = hhmm.split(':').map(Number);
      return date.toZonedDateTime({ timeZone, plainTime: Temporal.PlainTime.from({ hour: h, minute: m }) }).toInstant().toString({ smallestUnit: 'millisecond' });
    },
  };
}

/** A fixed local date (YYYY-MM-DD) in a zone, with the same `at()` as nextWeekday. */
export function onDate(isoDate: string, timeZone: string) {
  const date = Temporal.PlainDate.from(isoDate);
  return {
    date,
    at(hhmm: string): string {
      const [h, m] = hhmm.split(':').map(Number);
      return date.toZonedDateTime({ timeZone, plainTime: Temporal.PlainTime.from({ hour: h, minute: m }) }).toInstant().toString({ smallestUnit: 'millisecond' });
    },
  };
}

export const ALL_PERMISSIONS: Permission[] = ['read_availability', 'create_holds', 'create_bookings', 'preempt', 'read_audit'];

/**
 * Agents made straight through the domain service (no HTTP), for tests that
 * need many: creating them over HTTP would spend the per-IP global limit.
 */
export async function directAgents(admin: TestCustomer, count: number, permissions: Permission[], ownerScope = 'org:*'): Promise<{ agentId: string; key: string }[]> {
  const db = await getDb();
  const out: { agentId: string; key: string }[] = [];
  for (let i = 0; i < count; i++) {
    const agent = await createAgent(db, admin.customerId, null, { name: `agent ${i}`, owner_scope: ownerScope, permissions });
    const key = await mintApiKey(db, admin.customerId, null, agent.id, null, new Date());
    out.push({ agentId: agent.id, key: key.api_key });
  }
  return out;
}

/** The owner row id of an email in a customer. */
export async function ownerIdOf(admin: TestCustomer, email: string): Promise<string> {
  const db = await getDb();
  const [row] = await db.select({ id: owners.id }).from(owners).where(and(eq(owners.customerId, admin.customerId), eq(owners.email, email)));
  if (!row) throw new Error(`no owner ${email}`);
  return row.id;
}

/** Set the status of the owner's primary calendar directly in the database. */
export async function setPrimaryCalendarStatus(admin: TestCustomer, email: string, status: 'active' | 'disconnected' | 'reauth_required'): Promise<void> {
  const db = await getDb();
  const ownerId = await ownerIdOf(admin, email);
  await db.update(calendars).set({ status }).where(and(eq(calendars.ownerId, ownerId), eq(calendars.isPrimary, true)));
}

/** Patch a claim (hold or booking) row directly: fast-forward expiry, age a booking, and so on. */
export async function patchClaim(id: string, patch: Partial<typeof claims.$inferInsert>): Promise<void> {
  const db = await getDb();
  await db.update(claims).set(patch).where(eq(claims.id, id));
}

/** Claim rows of an owner (any status). */
export async function claimsOf(admin: TestCustomer, email: string) {
  const db = await getDb();
  return db.select().from(claims).where(eq(claims.ownerId, await ownerIdOf(admin, email)));
}

/** Every local weekday 09:00-17:00 (Saturday and Sunday too). */
export function everyDay(start = '09:00', end = '17:00') {
  const r = [{ start, end }];
  return { mon: r, tue: r, wed: r, thu: r, fri: r, sat: r, sun: r };
}

/** A Tuesday five days before the first EU spring-forward (last Sunday of March) at least two weeks ahead, in Berlin. */
export function tuesdayBeforeSpringForward() {
  const today = Temporal.Now.plainDateISO('Europe/Berlin');
  for (let year = today.year; ; year++) {
    const end = Temporal.PlainDate.from({ year, month: 3, day: 31 });
    const lastSunday = end.subtract({ days: end.dayOfWeek % 7 });
    if (Temporal.PlainDate.compare(lastSunday, today.add({ days: 14 })) > 0) return onDate(lastSunday.subtract({ days: 5 }).toString(), 'Europe/Berlin');
  }
}
