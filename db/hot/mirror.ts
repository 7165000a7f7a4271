import { calendarEvents, calendars, owners } from '../schema';
import type { Executor } from '../client';
import { byOwner, holdDecisionCurrent, ownerByHold, type OwnerRef } from './claims';
import { epochMs, names } from './columns';
import { queryRows, type RawRow } from './driver';

/**
 * Provider busy time for one decision or search, in one statement (docs/calendars.md
 * "Reading the mirror"): every connected provider calendar of the owner (not internal, not
 * disconnected) with what the fail-closed check needs, and, for the ones marked "check for
 * conflicts", their mirrored instances overlapping [from, to) (a left join, so a calendar
 * without any still has its row). Sent beside the claims statement, it shares its round trip
 * on a pipelined connection. The events are found through the owner's range index.
 */
const c = names(calendars);
const e = names(calendarEvents);
const o = names(owners);

/**
 * By hold (a confirm's): the calendars always (the fail-closed check runs whatever the
 * decision), their instances only when the hold's decision is not current (holdDecisionCurrent).
 */
function busyStatement(by: 'id' | 'email' | 'hold' | 'ids'): string {
  const who =
    by === 'email'
      ? `o.${o.customerId} = $1 and o.${o.email} = $4`
      : by === 'hold'
        ? `o.${o.id} = ${ownerByHold(1, 4)}`
        : by === 'ids'
          ? `o.${o.id} in (select jsonb_array_elements_text($1::jsonb)::uuid)`
          : `o.${o.id} = $1`;
  return `select c.${c.id} as id, c.${c.type} as type, c.${c.displayName} as display_name, c.${c.status} as status, c.${c.checkConflicts} as check_conflicts,
    ${epochMs(`c.${c.lastSyncedAt}`)} as synced_ms, o.${o.email} as owner_email, o.${o.id} as owner_id, ev.start_ms, ev.end_ms
    from calendars c join owners o on o.${o.id} = c.${c.ownerId}
    left join lateral (
      select ${epochMs(`e.${e.startAt}`)} as start_ms, ${epochMs(`e.${e.endAt}`)} as end_ms from calendar_events e
      where e.${e.ownerId} = c.${c.ownerId} and e.${e.calendarId} = c.${c.id} and e.${e.startAt} < $3::timestamptz and e.${e.endAt} > $2::timestamptz
    ) ev on c.${c.checkConflicts}${by === 'hold' ? ` and not ${holdDecisionCurrent(1, 4)}` : ''}
    where ${who} and c.${c.type} <> 'internal' and c.${c.status} <> 'disconnected'`;
}
const PROVIDER_BUSY = busyStatement('id');
const PROVIDER_BUSY_BY_EMAIL = busyStatement('email');
const PROVIDER_BUSY_BY_HOLD = busyStatement('hold');
/** Several owners at once ($1: a JSON array of owner ids): one statement for a group search (docs/groups.md). */
const PROVIDER_BUSY_OF_OWNERS = busyStatement('ids');

/** A provider calendar as the fail-closed check reads it. */
type ProviderCalendarFacts = { id: string; type: string; displayName: string | null; status: string; checkConflicts: boolean; lastSyncedAt: Date | null; ownerEmail: string };
/** Its mirrored instances overlapping the range (epoch milliseconds; unordered). */
export type ProviderBusyFacts = { calendars: ProviderCalendarFacts[]; events: { start: number; end: number }[] };

export async function providerBusyFacts(db: Executor, owner: OwnerRef, from: Date, to: Date): Promise<ProviderBusyFacts> {
  const s = byOwner(owner, { id: PROVIDER_BUSY, email: PROVIDER_BUSY_BY_EMAIL, hold: PROVIDER_BUSY_BY_HOLD });
  return busyFactsOf(await queryRows(db, s.text, [s.first, from.toISOString(), to.toISOString(), ...s.rest]));
}

/** providerBusyFacts of several owners in one statement, by owner id (an owner without provider calendars is absent). */
export async function providerBusyFactsOfOwners(db: Executor, ownerIds: readonly string[], from: Date, to: Date): Promise<Map<string, ProviderBusyFacts>> {
  const rows = await queryRows(db, PROVIDER_BUSY_OF_OWNERS, [JSON.stringify(ownerIds), from.toISOString(), to.toISOString()]);
  const byOwner = new Map<string, RawRow[]>();
  for (const r of rows) {
    const id = String(r.owner_id);
    const list = byOwner.get(id);
    if (list) list.push(r);
    else byOwner.set(id, [r]);
  }
  return new Map([...byOwner].map(([id, list]) => [id, busyFactsOf(list)]));
}

function busyFactsOf(rows: RawRow[]): ProviderBusyFacts {
  const byId = new Map<string, ProviderCalendarFacts>();
  const events: { start: number; end: number }[] = [];
  for (const r of rows) {
    const id = String(r.id);
    if (!byId.has(id)) {
      byId.set(id, {
        id,
        type: String(r.type),
        displayName: (r.display_name as string | null) ?? null,
        status: String(r.status),
        checkConflicts: r.check_conflicts === true,
        lastSyncedAt: r.synced_ms == null ? null : new Date(Number(r.synced_ms)),
        ownerEmail: String(r.owner_email),
      });
    }
    if (r.start_ms != null) events.push({ start: Number(r.start_ms), end: Number(r.end_ms) });
  }
  return { calendars: [...byId.values()], events };
}
