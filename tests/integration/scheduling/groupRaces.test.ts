import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { newCustomer, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { call, directAgents, everyDay, ownerIdOf, setupOwner } from './fixtures';
import { NEEDS_POSTGRES_FOR_RACES } from '../../helpers/skips';

/**
 * Group holds racing on real PostgreSQL (docs/groups.md, "Group holds and bookings"): 256
 * racers per round, each a random 3 to 5 of 10 owners, all for one slot. Disjoint groups may
 * both win; what must hold is that no partial group is ever visible (a checker reads the
 * claims in repeatable read the whole time), no owner is double-booked, and nothing answers
 * 5xx (deadlocks between groups sharing owners are avoided or retried inside). Skipped on
 * PGlite (one connection: nothing races).
 */
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);
const RACERS = 256;
const ROUNDS = Number(process.env.GROUP_RACE_ROUNDS || 2);

let admin: TestCustomer;
const owners: string[] = [];
let ownerIds: string[] = [];
beforeAll(async () => {
  if (!ON_POSTGRES) return;
  admin = await newCustomer();
  for (let i = 0; i < 10; i++) owners.push(await setupOwner(admin, { workingHours: everyDay('00:00', '24:00') }));
  ownerIds = await Promise.all(owners.map((o) => ownerIdOf(admin, o)));
});

function pick(n: number): string[] {
  const pool = [...owners];
  const out: string[] = [];
  while (out.length < n) out.push(pool.splice(Math.floor(Math.random() * pool.length), 1)[0]);
  return out;
}

type Snapshot = { groupId: string; n: number; statuses: string[] };

/** Read every group's members of these owners in one repeatable-read snapshot, again and again until stopped. */
function checker(): { stop: () => Promise<Snapshot[]>; reads: () => number } {
  let stopped = false;
  let reads = 0;
  const seen: Snapshot[] = [];
  const loop = (async () => {
    const db = await getDb();
    while (!stopped) {
      const rows = await db.transaction(
        async (tx) =>
          tx.execute(sql`select group_id::text as group_id, count(*)::int as n, array_agg(distinct status) as statuses
            from claims where owner_id in ${sql.raw(`(${ownerIds.map((id) => `'${id}'`).join(',')})`)} and group_id is not null and part_of_hold_id is null group by group_id`),
        { isolationLevel: 'repeatable read' },
      );
      reads++;
      for (const r of rows as unknown as { group_id: string; n: number; statuses: string[] | string }[]) {
        seen.push({ groupId: r.group_id, n: r.n, statuses: Array.isArray(r.statuses) ? r.statuses : String(r.statuses).replace(/[{}]/g, '').split(',') });
      }
    }
  })();
  return {
    reads: () => reads,
    stop: async () => {
      stopped = true;
      await loop;
      return seen;
    },
  };
}

describe('group hold races on PostgreSQL', () => {
  it(`${RACERS} racers x ${ROUNDS} rounds, each a random 3-5 of 10 owners on one slot: no partial group, no double booking, no 5xx`, async (ctx) => {
    if (!ON_POSTGRES) ctx.skip(NEEDS_POSTGRES_FOR_RACES);
    // 120 holds per key and minute: spread the racers over enough agents.
    const agents = await directAgents(admin, Math.ceil((RACERS * ROUNDS) / 100), ['create_holds']);
    let used = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const slot = { start: `2027-05-0${3 + round}T10:00:00.000Z`, end: `2027-05-0${3 + round}T10:30:00.000Z` };
      const check = checker();
      const responses: ApiResponse[] = await Promise.all(
        Array.from({ length: RACERS }, () => {
          const key = agents[Math.floor(used++ / 100)].key;
          return call('POST', '/v1/holds', { key, body: { owner_emails: pick(3 + Math.floor(Math.random() * 3)), meeting_class: 'internal', hold_scope: 'candidate', candidate: slot } });
        }),
      );
      const snapshots = await check.stop();
      expect(check.reads()).toBeGreaterThan(0);
      expect(responses.filter((r) => r.status >= 500).map((r) => r.text), 'no 5xx').toEqual([]);
      const winners = responses.filter((r) => r.status === 200);
      expect(winners.length).toBeGreaterThan(0);
      for (const r of responses.filter((x) => x.status !== 200)) {
        expect(r.status, r.text).toBe(409);
        expect(r.body.error.code).toBe('ARBITRATION_REJECTED');
        expect(r.body.owners.length).toBeGreaterThan(0);
      }
      // No owner in two winning groups.
      const taken = winners.flatMap((w) => w.body.members.map((m: { owner_email: string }) => m.owner_email));
      expect(new Set(taken).size).toBe(taken.length);
      // Every snapshot saw each group whole (all members, one status).
      const size = new Map(winners.map((w) => [w.body.group_id as string, w.body.members.length as number]));
      for (const s of snapshots) {
        if (!size.has(s.groupId)) continue; // an earlier round's
        expect(s.n, `group ${s.groupId} seen with ${s.n} members`).toBe(size.get(s.groupId));
        expect(s.statuses).toHaveLength(1);
      }
    }
    // The database: no two active claims of one owner overlap.
    const db = await getDb();
    const overlaps = await db.execute(sql`select a.id from claims a join claims b on b.owner_id = a.owner_id and b.id < a.id
      where a.owner_id in ${sql.raw(`(${ownerIds.map((id) => `'${id}'`).join(',')})`)} and a.status in ('active','confirmed') and b.status in ('active','confirmed')
        and tstzrange(a.start_at, a.end_at) && tstzrange(b.start_at, b.end_at)`);
    expect([...(overlaps as unknown as unknown[])]).toEqual([]);
  }, 300_000);
});
