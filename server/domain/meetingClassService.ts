import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { meetingClasses } from '@/db/schema';
import { audited, type AdminActor } from './adminAudit';
import { DomainError } from './errors';
import { newId } from './ids';

export type MeetingClassRow = typeof meetingClasses.$inferSelect;
export type MeetingClassView = {
  name: string;
  priority: number;
  preempt_policy: 'preempt_lower' | 'never';
  sacred_meeting_age_hours: number;
  buffer_before_minutes: number;
  buffer_after_minutes: number;
  reminder_offsets_minutes: number[];
  on_preempted: 'hold_nearest' | null;
};

export function meetingClassView(c: MeetingClassRow): MeetingClassView {
  return {
    name: c.name,
    priority: c.priority,
    preempt_policy: c.preemptPolicy,
    sacred_meeting_age_hours: c.sacredMeetingAgeHours,
    buffer_before_minutes: c.bufferBeforeMinutes,
    buffer_after_minutes: c.bufferAfterMinutes,
    reminder_offsets_minutes: c.reminderOffsetsMinutes,
    on_preempted: c.onPreempted ?? null,
  };
}

type MeetingClassInput = {
  name: string;
  priority: number;
  preempt_policy?: 'preempt_lower' | 'never';
  sacred_meeting_age_hours?: number;
  /** docs/arbitration.md "Buffers" (0-240, validated by the schema; the database CHECKs them). */
  buffer_before_minutes?: number;
  buffer_after_minutes?: number;
  /** docs/reliability.md "Reminders" (validated by the schema; the database CHECKs them). */
  reminder_offsets_minutes?: number[];
  /** docs/arbitration.md "Bumped meetings rebooked" (null or left out: nothing is held). */
  on_preempted?: 'hold_nearest' | null;
};

/** A change of a class: any of its settings but its name (PATCH /v1/meeting-classes/{name}). */
type MeetingClassChange = Partial<Omit<MeetingClassInput, 'name'>>;

export async function createMeetingClass(db: Executor, customerId: string, input: MeetingClassInput, actor: AdminActor = null): Promise<MeetingClassRow> {
  return audited(
    db,
    actor,
    (tx) => insertMeetingClass(tx, customerId, input),
    (row) => ({ action: 'meeting_class.create', customerId, meetingClass: row.name, details: meetingClassView(row), at: new Date() }),
  );
}

async function insertMeetingClass(db: Executor, customerId: string, input: MeetingClassInput): Promise<MeetingClassRow> {
  try {
    const [row] = await db
      .insert(meetingClasses)
      .values({
        id: newId(),
        customerId,
        name: input.name,
        priority: input.priority,
        preemptPolicy: input.preempt_policy ?? 'preempt_lower',
        sacredMeetingAgeHours: input.sacred_meeting_age_hours ?? 24,
        bufferBeforeMinutes: input.buffer_before_minutes ?? 0,
        bufferAfterMinutes: input.buffer_after_minutes ?? 0,
        reminderOffsetsMinutes: offsets(input.reminder_offsets_minutes ?? []),
        onPreempted: input.on_preempted ?? null,
      })
      .returning();
    return row;
  } catch (err) {
    if (isConstraintViolation(err, PG_UNIQUE_VIOLATION)) {
      throw new DomainError('MEETING_CLASS_ALREADY_EXISTS', `A meeting class named ${input.name} already exists`);
    }
    throw err;
  }
}

/** Reminder offsets as stored: distinct, largest first. */
const offsets = (list: number[]) => [...new Set(list)].sort((a, b) => b - a);

/**
 * Change a class's settings (not its name), audited `meeting_class.update` with the settings
 * before and after, as other administrative edits (a change that changes nothing writes none). What was decided with the old settings stays
 * (a claim keeps its buffers and reminders; docs/arbitration.md "Buffers").
 */
export async function updateMeetingClass(db: Executor, customerId: string, name: string, change: MeetingClassChange, actor: AdminActor = null, now: Date = new Date()): Promise<MeetingClassRow> {
  return audited(
    db,
    actor,
    async (tx) => {
      const before = await meetingClassNamed(tx, customerId, name);
      const set = {
        ...(change.priority !== undefined ? { priority: change.priority } : {}),
        ...(change.preempt_policy !== undefined ? { preemptPolicy: change.preempt_policy } : {}),
        ...(change.sacred_meeting_age_hours !== undefined ? { sacredMeetingAgeHours: change.sacred_meeting_age_hours } : {}),
        ...(change.buffer_before_minutes !== undefined ? { bufferBeforeMinutes: change.buffer_before_minutes } : {}),
        ...(change.buffer_after_minutes !== undefined ? { bufferAfterMinutes: change.buffer_after_minutes } : {}),
        ...(change.reminder_offsets_minutes !== undefined ? { reminderOffsetsMinutes: offsets(change.reminder_offsets_minutes) } : {}),
        ...(change.on_preempted !== undefined ? { onPreempted: change.on_preempted } : {}),
      };
      if (!Object.keys(set).length) return { before, after: before };
      const [after] = await tx.update(meetingClasses).set(set).where(eq(meetingClasses.id, before.id)).returning();
      return { before, after };
    },
    // Nothing changed (an empty patch, or the values it already has): no audit row.
    ({ before, after }) => (JSON.stringify(meetingClassView(before)) === JSON.stringify(meetingClassView(after)) ? null : { action: 'meeting_class.update', customerId, meetingClass: after.name, details: { ...meetingClassView(after), before: meetingClassView(before) }, at: now }),
  ).then((r) => r.after);
}

/** The customer's class with this name, or MEETING_CLASS_NOT_FOUND (a class addressed by its path: GET/PATCH /v1/meeting-classes/{name}). */
export async function meetingClassNamed(db: Executor, customerId: string, name: string): Promise<MeetingClassRow> {
  const [row] = await db
    .select()
    .from(meetingClasses)
    .where(and(eq(meetingClasses.customerId, customerId), eq(meetingClasses.name, name)))
    .limit(1);
  if (!row) throw new DomainError('MEETING_CLASS_NOT_FOUND', `No meeting class named ${JSON.stringify(name)}`);
  return row;
}

export async function listMeetingClasses(db: Executor, customerId: string): Promise<MeetingClassRow[]> {
  return db.select().from(meetingClasses).where(eq(meetingClasses.customerId, customerId)).orderBy(asc(meetingClasses.name));
}

/** The customer's class with this name, or INVALID_MEETING_CLASS naming the valid ones in `valid_meeting_classes` (classes are customer-scoped). */
export async function getMeetingClass(db: Executor, customerId: string, name: string): Promise<MeetingClassRow> {
  const [row] = await db
    .select()
    .from(meetingClasses)
    .where(and(eq(meetingClasses.customerId, customerId), eq(meetingClasses.name, name)))
    .limit(1);
  if (!row) {
    // the refusal names the valid classes, so an agent that guessed can pick one
    const valid = (await listMeetingClasses(db, customerId)).map((c) => c.name);
    throw new DomainError('INVALID_MEETING_CLASS', `meeting_class ${JSON.stringify(name)} is not registered for this customer; valid: ${valid.map((v) => JSON.stringify(v)).join(', ') || 'none (register one with POST /v1/meeting-classes)'}`, {
      extra: { valid_meeting_classes: valid },
    });
  }
  return row;
}
