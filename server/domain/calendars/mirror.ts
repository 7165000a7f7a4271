import type { Executor } from '@/db/client';
import { providerCalendarRows } from '@/db/hot/access';
import type { OwnerRef } from '@/db/hot/claims';
import { providerBusyFacts, type ProviderBusyFacts } from '@/db/hot/mirror';
import { getConfig } from '@/server/config';
import { DomainError } from '../errors';
import { normalizeEmail } from '../access';
import type { Claim } from '../scheduling';
import { syncCalendar } from './sync';

/**
 * Provider busy time as the scheduling core sees it: the mirror's instances
 * overlapping [from, to) of every connected calendar of the owner marked
 * "check for conflicts", merged where they overlap, as sacred bookings of
 * unbeatable priority (DESIGN rule: provider events are always busy and
 * always sacred). Read from the database only, never the network; it fails
 * closed (docs/calendars.md): a calendar needing re-authorisation answers
 * CALENDAR_REAUTH_REQUIRED, a mirror older than the hard bound
 * CALENDAR_UNAVAILABLE.
 */
export type NamedOwner = string | { customerId: string; email: string };

type ProviderCalendar = { id: string; type: string; displayName: string | null; status: string; checkConflicts: boolean; lastSyncedAt: Date | null; ownerEmail: string };

async function providerCalendars(db: Executor, owner: NamedOwner): Promise<ProviderCalendar[]> {
  return providerCalendarRows(db, typeof owner === 'string' ? owner : { customerId: owner.customerId, email: normalizeEmail(owner.email) });
}

const calendarLabel = (c: { type: string; displayName: string | null }) => (c.displayName ? `${c.type} calendar "${c.displayName}"` : `${c.type} calendar`);

function reauthError(c: ProviderCalendar): DomainError {
  return new DomainError('CALENDAR_REAUTH_REQUIRED', `The ${calendarLabel(c)} of ${c.ownerEmail} needs to be re-authorised (reconnect it); refusing to use stale or revoked access`, {
    extra: { calendar_id: c.id },
  });
}

function unavailableError(c: ProviderCalendar, retryAfterSeconds: number): DomainError {
  const age = c.lastSyncedAt ? `last synced ${c.lastSyncedAt.toISOString()}` : 'never synced';
  return new DomainError('CALENDAR_UNAVAILABLE', `The ${calendarLabel(c)} of ${c.ownerEmail} cannot be reached and its copy is too old to decide on (${age}); retry later`, {
    extra: { calendar_id: c.id, retry_after_seconds: retryAfterSeconds },
  });
}

function check(c: ProviderCalendar, now: Date, hardMs: number): void {
  if (c.status === 'reauth_required') throw reauthError(c);
  if (!c.lastSyncedAt || now.getTime() - c.lastSyncedAt.getTime() > hardMs) throw unavailableError(c, retryAfter());
}

function retryAfter(): number {
  const config = getConfig();
  return Math.max(1, Math.min(60, config.calendarSyncIntervalSeconds || 60));
}

/**
 * The calendar gate folded into a claim transaction (docs/calendars.md, "How fresh, and what fails closed"):
 * a claim the REST wrapper runs with `CalendarGate` checks, in the statement that loads the
 * busy time anyway, that ensureCalendarsUsable would have nothing to do (every provider
 * calendar active and synced within the freshness bound). When it would, this is thrown: the
 * transaction rolls back, the wrapper runs ensureCalendarsUsable outside any transaction (sync,
 * or the same fail-closed error) and runs the claim again without the gate. Never answered.
 */
export type CalendarGate = { freshMs: number };

export class CalendarGateNeeded extends DomainError {
  constructor() {
    super('internal_error', 'A provider calendar must be synced or checked before this claim (caught by the REST wrapper)');
  }
}

/** The gate of a claim the REST wrapper runs for an owner-naming call. */
export function calendarGate(): CalendarGate {
  return { freshMs: getConfig().calendarFreshSeconds * 1000 };
}

/** Busy time from the owner's provider calendars overlapping [from, to); throws when it cannot be trusted. One statement (db/hot/mirror.ts). */
export async function loadProviderBusy(db: Executor, owner: OwnerRef, from: Date, to: Date, now: Date, gate?: CalendarGate): Promise<(Claim & { agentId: string | null })[]> {
  const facts = await providerBusyFacts(db, typeof owner === 'string' || 'holdId' in owner ? owner : { customerId: owner.customerId, email: normalizeEmail(owner.email) }, from, to);
  return providerBusyClaims(facts, now, gate);
}

/**
 * Provider busy facts as claims (loadProviderBusy's rules: the gate, fail closed, merged
 * instances as sacred bookings); used as well by the group loader (claims/groupFacts.ts).
 */
export function providerBusyClaims(facts: ProviderBusyFacts, now: Date, gate?: CalendarGate): (Claim & { agentId: string | null })[] {
  if (!facts.calendars.length) return [];
  if (gate && facts.calendars.some((c) => c.status !== 'active' || !c.lastSyncedAt || now.getTime() - c.lastSyncedAt.getTime() > gate.freshMs)) throw new CalendarGateNeeded();
  const hardMs = getConfig().calendarHardStaleSeconds * 1000;
  for (const c of facts.calendars) check(c, now, hardMs);
  const rows = [...facts.events].sort((a, b) => a.start - b.start);
  const merged: { start: number; end: number }[] = [];
  for (const r of rows) {
    const s = r.start;
    const e = r.end;
    const last = merged[merged.length - 1];
    if (last && s <= last.end) last.end = Math.max(last.end, e);
    else merged.push({ start: s, end: e });
  }
  return merged.map((b) => ({
    id: `provider:${b.start}-${b.end}`,
    kind: 'booking' as const,
    agentId: null,
    start: b.start,
    end: b.end,
    countedMinutes: (b.end - b.start) / 60_000,
    priority: Number.MAX_SAFE_INTEGER,
    sacred: true,
    external: true,
  }));
}

/**
 * Before a request for this owner is answered: a mirror older than the
 * freshness bound is synced now (bounded by the sync timeout); then the
 * calendars must be usable (loadProviderBusy's rules). Runs outside any
 * transaction so a calendar marked `reauth_required` stays marked. A no-op
 * for owners with only the internal calendar, or not (yet) existing.
 */
export async function ensureCalendarsUsable(db: Executor, owner: NamedOwner, now: Date): Promise<void> {
  const cals = await providerCalendars(db, owner);
  if (!cals.length) return;
  const config = getConfig();
  const freshMs = config.calendarFreshSeconds * 1000;
  for (const c of cals) {
    if (c.status === 'active' && (!c.lastSyncedAt || now.getTime() - c.lastSyncedAt.getTime() > freshMs)) {
      const r = await syncCalendar(db, c.id, now);
      if (r.outcome === 'reauth_required') c.status = 'reauth_required';
      if (r.outcome === 'synced') c.lastSyncedAt = now;
    }
    check(c, now, config.calendarHardStaleSeconds * 1000);
  }
}

