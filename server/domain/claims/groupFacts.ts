import type { Executor } from '@/db/client';
import { searchFactsOfOwners } from '@/db/hot/claims';
import { providerBusyFactsOfOwners } from '@/db/hot/mirror';
import { calendarGate, CalendarGateNeeded, ensureCalendarsUsable, providerBusyClaims } from '../calendars/mirror';
import type { Claim } from '../scheduling';
import { searchClaims } from './claimStore';

/**
 * The facts of several owners at once (docs/groups.md "How a group is loaded"): one statement
 * per kind of fact over all owner ids, never one per owner (their targets: claimTarget.ts loadTargets).
 *   loadGroupClaims   every owner's active claims (the columns a verdict reads) and provider busy
 *                     time around a range: two statements sent together (one round trip on a
 *                     pipelined connection).
 * Shared by the collective search and the group holds and bookings.
 */

/**
 * Every owner's active claims overlapping [from, to) plus its provider busy time (loadClaims'
 * rules per owner), by owner id, as the pure core's claims: what a search's verdicts read, not the
 * agent or class name a decision's answer names (a decision loads its owner with loadClaims).
 * With `gate`: CalendarGateNeeded when an owner's provider calendar would need a sync first (as a
 * single claim's gate).
 */
export async function loadGroupClaims(
  db: Executor,
  ownerIds: readonly string[],
  from: Date,
  to: Date,
  now: Date,
  gate?: { freshMs: number },
): Promise<Map<string, Claim[]>> {
  const [own, busy] = await Promise.all([searchFactsOfOwners(db, ownerIds, from, to), providerBusyFactsOfOwners(db, ownerIds, from, to)]);
  const out = new Map<string, Claim[]>();
  for (const id of ownerIds) {
    const claims = searchClaims(own.get(id) ?? [], now);
    const facts = busy.get(id);
    const provider = facts ? providerBusyClaims(facts, now, gate) : [];
    out.set(id, provider.length ? [...claims, ...provider] : claims);
  }
  return out;
}

/**
 * loadGroupClaims for a read (a search) with the calendar gate folded in: when an owner's
 * provider calendar needs a sync, every owner's calendars are made usable first
 * (ensureCalendarsUsable: sync, or the fail-closed error) and the facts read again. Owners
 * with fresh mirrors cost nothing beyond the two statements.
 */
export async function loadGroupClaimsGated(db: Executor, ownerIds: readonly string[], from: Date, to: Date, now: Date): Promise<Map<string, Claim[]>> {
  try {
    return await loadGroupClaims(db, ownerIds, from, to, now, calendarGate());
  } catch (err) {
    if (!(err instanceof CalendarGateNeeded)) throw err;
    for (const id of ownerIds) await ensureCalendarsUsable(db, id, now);
    return loadGroupClaims(db, ownerIds, from, to, now);
  }
}
