/**
 * Seeding of the booking benchmark: one customer with an agent and a meeting class, owners with
 * their primary calendars and pre-filled slots, API keys; the claims-around check on a sample of
 * the measured bookings; and the cleanup.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '@/db/client';
import { calendars, claims, customers, owners } from '@/db/schema';
import type { AgentActor } from '@/server/domain/access';
import { mintApiKey } from '@/server/domain/agentService';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { newId } from '@/server/domain/ids';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { ALL_DAY, CLASS, ownerEmail, PREFILL, SLOT_MS, slotStart, TZ } from './options';

export type Seeded = { customerId: string; agentId: string; classId: string; actor: AgentActor; apiKey: string };

export async function seedCustomer(db: Db, label: string): Promise<Seeded> {
  const boot = await bootstrapCustomer(db, `bench booking ${label} ${new Date().toISOString()}`);
  const mc = await createMeetingClass(db, boot.customer_id, { name: CLASS, priority: 50 });
  const actor = await authenticateApiKey(db, boot.api_key, new Date());
  return { customerId: boot.customer_id, agentId: boot.agent_id, classId: mc.id, actor, apiKey: boot.api_key };
}

/**
 * `n` owners `0@tag...` to `n-1@tag...`, each with its primary internal calendar (as createOwner
 * makes them), and confirmed bookings on slots 0 to PREFILL-1 (random owners, like the measured
 * ones), so the first measured booking already finds the steady-state number of claims around it.
 */
export async function seedOwners(db: Db, seeded: Seeded, tag: string, n: number): Promise<string[]> {
  const customerId = seeded.customerId;
  const rows = Array.from({ length: n }, (_, i) => ({
    id: newId(),
    customerId,
    email: ownerEmail(tag, i),
    name: `Bench ${tag} ${i}`,
    timeZone: TZ,
    workingHours: ALL_DAY,
    hardBlocks: [],
    maxDailyMeetingHours: null,
  }));
  await db.insert(owners).values(rows);
  const cals = rows.map((o) => ({ id: newId(), customerId, ownerId: o.id, type: 'internal', isPrimary: true, status: 'active' as const, displayName: 'Internal' }));
  await db.insert(calendars).values(cals);
  const now = new Date();
  const history = Array.from({ length: PREFILL }, (_, i) => {
    const o = Math.floor(Math.random() * n);
    return {
      id: newId(),
      customerId,
      ownerId: rows[o].id,
      calendarId: cals[o].id,
      agentId: seeded.agentId,
      meetingClassId: seeded.classId,
      kind: 'booking' as const,
      status: 'confirmed' as const,
      startAt: new Date(slotStart(i)),
      endAt: new Date(slotStart(i) + SLOT_MS),
      source: 'agent' as const,
      attendees: [],
      createdAt: now,
      updatedAt: now,
    };
  });
  for (let i = 0; i < history.length; i += 500) await db.insert(claims).values(history.slice(i, i + 500));
  return rows.map((r) => r.id);
}

/** `n` more API keys of the seeded agent, minted 16 at a time. */
export async function mintKeys(db: Db, seeded: Seeded, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i += 16) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(16, n - i) }, (_, j) => mintApiKey(db, seeded.customerId, null, seeded.agentId, `bench-booking-${i + j}`, new Date())),
    );
    keys.push(...batch.map((k) => k.api_key));
  }
  return keys;
}

/** Mean number of active claims of the same owner, made before it, in the +-26 h (VERDICT_CLAIMS_MARGIN_MS) a sample of the measured bookings loaded. */
export async function claimsAround(db: Db, ownerIds: string[]): Promise<number | null> {
  if (!ownerIds.length) return null;
  const rows = (await db.execute(sql`
    with sample as (
      select owner_id, start_at, end_at, created_at from claims
      where owner_id in ${sql.raw(`(${ownerIds.map((id) => `'${id}'`).join(',')})`)} and start_at >= ${new Date(slotStart(PREFILL)).toISOString()}::timestamptz
      order by random() limit 300
    )
    select avg((select count(*) from claims c where c.owner_id = s.owner_id and c.status in ('active','confirmed')
      and tstzrange(c.start_at, c.end_at, '[)') && tstzrange(s.start_at - interval '26 hours', s.end_at + interval '26 hours', '[)')
      and c.created_at < s.created_at))::float8 as mean
    from sample s`)) as unknown as { mean: number | null }[];
  return rows[0]?.mean ?? null;
}

export async function cleanup(db: Db, customerId: string): Promise<void> {
  // claims.meeting_class_id is ON DELETE RESTRICT: remove the claims before the customer cascade.
  await db.delete(claims).where(eq(claims.customerId, customerId));
  await db.delete(customers).where(eq(customers.id, customerId));
}
