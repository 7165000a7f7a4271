/**
 * Setup of bench/availability.ts: the seeded booking generator and the rows of one fresh customer
 * (meeting classes, the three owners with their schedule rules, their bookings), and their removal.
 */
import { eq, sql } from 'drizzle-orm';
import type { Temporal } from 'temporal-polyfill';
import type { Db } from '@/db/client';
import { calendars, claims, customers, type AttendeeJson } from '@/db/schema';
import type { AgentActor } from '@/server/domain/access';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { newId } from '@/server/domain/ids';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { createOwner, putScheduleRules } from '@/server/domain/ownerService';
import { BUFFERED_CLASS, BUFFERS, DAY, HARD_BLOCKS, localMs, MINUTE, PROFILES, SEARCH_CLASS, TZ, WINDOWS, WORKING_HOURS, YEAR_DAYS, yearStart, type OwnerProfile } from './options';

// ---------------------------------------------------------------------------------------------
// Booking generator

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Kind = 'internal' | 'customer' | 'provider' | 'exec';
export type GenBooking = { start: number; end: number; kind: Kind };

const SPAN_START = '07:00';
const SPAN_MINUTES = 13 * 60; // 07:00-20:00 local: no DST change inside it

/** k bookings on one working day: the span is cut into equal cells of whole 5 minutes, one booking per cell. */
function dayBookings(day: Temporal.PlainDate, dayIndex: number, k: number, density: string, salt = 0): GenBooking[] {
  if (k <= 0) return [];
  const rand = mulberry32(dayIndex * 7919 + (density === '2k' ? 1 : 2) * 104_729 + salt * 15_485_863);
  const cell = Math.floor(SPAN_MINUTES / k / 5) * 5;
  if (cell < 5) throw new Error(`too many bookings for one day: ${k}`);
  const durations = cell >= 60 ? [15, 30, 30, 45, 60] : cell >= 30 ? [15, 30] : cell >= 15 ? [10, 15] : [5, 5, 10];
  const fitting = durations.filter((d) => d <= cell);
  const base = localMs(day, SPAN_START);
  const out: GenBooking[] = [];
  for (let j = 0; j < k; j++) {
    const dur = fitting[Math.floor(rand() * fitting.length)];
    const offset = 5 * Math.floor(rand() * ((cell - dur) / 5 + 1));
    const r = rand();
    const kind: Kind = r < 0.7 ? 'internal' : r < 0.85 ? 'customer' : r < 0.95 ? 'provider' : 'exec';
    const start = base + (j * cell + offset) * MINUTE;
    out.push({ start, end: start + dur * MINUTE, kind });
  }
  return out;
}

/**
 * `total` bookings over the working days of the year; with quietAroundWindows, the days within 2 of the windows get the 2k owner's bookings.
 * `salt` varies the calendar (another owner of the same profile: bench/collective-search.ts); 0 is the availability benchmark's.
 */
export function generate(profile: OwnerProfile, salt = 0): GenBooking[] {
  const days: { day: Temporal.PlainDate; index: number }[] = [];
  for (let i = 0; i < YEAR_DAYS; i++) {
    const day = yearStart.add({ days: i });
    if (day.dayOfWeek <= 5) days.push({ day, index: i });
  }
  const spread = (n: number, count: number, i: number) => Math.floor(((i + 1) * n) / count) - Math.floor((i * n) / count);
  const quietFrom = WINDOWS['31d'].start - 2 * DAY;
  const quietTo = WINDOWS['31d'].end + 2 * DAY;
  const isQuiet = (d: Temporal.PlainDate) => profile.quietAroundWindows && localMs(d) >= quietFrom && localMs(d) < quietTo;
  const out: GenBooking[] = [];
  let quietTotal = 0;
  days.forEach(({ day, index }, i) => {
    if (!isQuiet(day)) return;
    const b = dayBookings(day, index, spread(2_000, days.length, i), '2k', salt);
    quietTotal += b.length;
    out.push(...b);
  });
  const busy = days.filter(({ day }) => !isQuiet(day));
  busy.forEach(({ day, index }, i) => {
    out.push(...dayBookings(day, index, spread(profile.total - quietTotal, busy.length, i), profile.total === 2_000 ? '2k' : '20k', salt));
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Seeding

export type Seeded = {
  customerId: string;
  apiKey: string;
  agentId: string;
  actor: AgentActor;
  owners: { profile: OwnerProfile; ownerId: string; events: number }[];
};

export async function seed(db: Db, label: string): Promise<Seeded> {
  const runId = new Date().toISOString();
  const boot = await bootstrapCustomer(db, `bench ${label} ${runId}`);
  const cid = boot.customer_id;
  const classes = await createClasses(db, cid);
  await createMeetingClass(db, cid, { name: BUFFERED_CLASS, priority: 80, preempt_policy: 'preempt_lower', buffer_before_minutes: BUFFERS.before, buffer_after_minutes: BUFFERS.after });
  const owners: Seeded['owners'] = [];
  for (const profile of PROFILES) {
    const owner = await createOwner(db, cid, { email: profile.email, name: `Bench ${profile.name}`, time_zone: TZ });
    await putScheduleRules(db, cid, profile.email, { working_hours: WORKING_HOURS, hard_blocks: HARD_BLOCKS, max_daily_meeting_hours: profile.dailyLimitHours }, new Date());
    const [cal] = await db.select({ id: calendars.id }).from(calendars).where(eq(calendars.ownerId, owner.id));
    const events = await insertBookings(db, { customerId: cid, ownerId: owner.id, calendarId: cal.id, agentId: boot.agent_id, classes, label: profile.name }, generate(profile));
    owners.push({ profile, ownerId: owner.id, events });
  }
  await db.execute(sql`analyze claims`);
  const actor = await authenticateApiKey(db, boot.api_key, new Date());
  return { customerId: cid, apiKey: boot.api_key, agentId: boot.agent_id, actor, owners };
}

/** The bookings' classes (internal 20, customer 50, exec 90 `never`) and the searching class (80, `preempt_lower`). */
export async function createClasses(db: Db, cid: string): Promise<BookingTarget['classes']> {
  const classes = {
    internal: await createMeetingClass(db, cid, { name: 'internal', priority: 20 }),
    customer: await createMeetingClass(db, cid, { name: 'customer', priority: 50 }),
    exec: await createMeetingClass(db, cid, { name: 'exec', priority: 90, preempt_policy: 'never' }),
  };
  await createMeetingClass(db, cid, { name: SEARCH_CLASS, priority: 80, preempt_policy: 'preempt_lower' });
  return classes;
}

export type BookingTarget = { customerId: string; ownerId: string; calendarId: string; agentId: string; classes: Record<'internal' | 'customer' | 'exec', { id: string }>; label: string };

/** Insert the generated bookings of one owner in bulk (confirmed; provider ones without class or agent). Returns how many. */
export async function insertBookings(db: Db, t: BookingTarget, gen: GenBooking[]): Promise<number> {
  const createdAt = new Date();
  const rows = gen.map((b, i) => {
    const attendees: AttendeeJson[] = [{ email: `${t.label.replace('*', 'x')}@bench.example`, response: 'accepted' }];
    if (b.kind === 'customer') attendees.push({ email: `client${i % 97}@customer.example`, name: `Client ${i % 97}`, response: 'accepted', external: true });
    return {
      id: newId(),
      customerId: t.customerId,
      ownerId: t.ownerId,
      calendarId: t.calendarId,
      agentId: b.kind === 'provider' ? null : t.agentId,
      meetingClassId: b.kind === 'provider' ? null : t.classes[b.kind].id,
      kind: 'booking' as const,
      status: 'confirmed' as const,
      startAt: new Date(b.start),
      endAt: new Date(b.end),
      source: b.kind === 'provider' ? ('provider' as const) : ('agent' as const),
      title: `${b.kind} meeting`,
      attendees,
      externalAccepted: b.kind === 'customer',
      createdAt,
      updatedAt: createdAt,
    };
  });
  for (let i = 0; i < rows.length; i += 2_000) await db.insert(claims).values(rows.slice(i, i + 2_000));
  return rows.length;
}

export async function cleanup(db: Db, customerId: string): Promise<void> {
  // claims.meeting_class_id is ON DELETE RESTRICT: remove the claims before the customer cascade.
  await db.delete(claims).where(eq(claims.customerId, customerId));
  await db.delete(customers).where(eq(customers.id, customerId));
}
