import { and, asc, desc, eq, ne } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { calendarEvents, calendars } from '@/db/schema';
import { getConfig } from '@/server/config';
import { DomainError } from '../errors';
import { isUuid, newId } from '../ids';
import { getOwner } from '../ownerService';
import { discoverCaldavCalendars, type CaldavSettings } from './caldav';
import { exchangeGoogleCode, listGoogleCalendars, type GoogleCredentials } from './google';
import { exchangeMicrosoftCode, listMicrosoftCalendars, type MicrosoftCredentials } from './microsoft';
import { checkOutboundUrl, OutboundRefusedError } from '../outbound/guard';
import { ProviderAuthError, ProviderUnavailableError } from './provider';
import { sealSecret } from '../sealing';
import { syncCalendar, type SyncResult } from './sync';

/**
 * Connecting, reconnecting, listing and disconnecting an owner's provider
 * calendars (docs/calendars.md). Credentials are sealed (../sealing.ts) before
 * they reach the database; connecting runs a first sync so the mirror is
 * ready before the calendar is used.
 */
type CalendarRow = typeof calendars.$inferSelect;

export type CaldavConnectInput = {
  serverUrl: string;
  username: string;
  password: string;
  /** The collection to use; unset: the account's first calendar. */
  calendarUrl?: string;
  makePrimary?: boolean;
  checkConflicts?: boolean;
};

export async function connectCaldav(db: Executor, customerId: string, ownerEmail: string, input: CaldavConnectInput, now: Date): Promise<{ calendar: CalendarRow; sync: SyncResult }> {
  const owner = await getOwner(db, customerId, ownerEmail);
  const found = await discoverCaldav(input);
  const chosen = input.calendarUrl ? found.find((c) => sameUrl(c.url, input.calendarUrl!)) : found[0];
  if (!chosen) throw new DomainError('invalid_request', input.calendarUrl ? `No calendar ${input.calendarUrl} in this CalDAV account` : 'This CalDAV account has no calendar');
  const settings: CaldavSettings = { serverUrl: input.serverUrl, username: input.username, calendarUrl: chosen.url };
  const credentials = sealSecret({ password: input.password });
  const existing = (await db.select().from(calendars).where(and(eq(calendars.ownerId, owner.id), eq(calendars.type, 'caldav')))).find((c) => sameUrl(String(c.settings.calendarUrl ?? ''), chosen.url));
  return storeConnection(db, { customerId, ownerId: owner.id, existing, type: 'caldav', displayName: chosen.displayName, settings, credentials, input }, now);
}

/**
 * The calendars a CalDAV account offers (the dashboard's "pick calendar(s)" step; connecting
 * uses it too); nothing is stored. The server URL goes through the outbound guard before
 * anything is sent (docs/reliability.md "Outbound requests"), and so does every request of the
 * discovery (redirects and the collections the server names included): a refused address
 * answers the same 400 whether anything listens there or not.
 */
export async function discoverCaldav(input: { serverUrl: string; username: string; password: string }): Promise<{ url: string; displayName: string }[]> {
  if (!getConfig().caldavAllowHttp && !/^https:/i.test(input.serverUrl)) throw new DomainError('invalid_request', 'server_url must be an https URL', { fields: [{ field: 'server_url', message: 'Use an https:// address' }] });
  try {
    await checkOutboundUrl(input.serverUrl);
    return await discoverCaldavCalendars({ serverUrl: input.serverUrl, username: input.username }, { password: input.password }, AbortSignal.timeout(15_000));
  } catch (err) {
    if (err instanceof OutboundRefusedError) {
      const message = err.message.replace(/^refused: /, 'The CalDAV server URL is refused: ');
      throw new DomainError('invalid_request', message, { reason: err.reason, fields: [{ field: 'server_url', message }] });
    }
    if (err instanceof DomainError) throw err;
    // ProviderAuthError, ProviderUnavailableError, and tsdav's own plain errors for an answer it cannot read ("cannot find principalUrl").
    throw new DomainError('invalid_request', `Could not connect the CalDAV account: ${(err as Error).message}`);
  }
}

/** Reconnect a CalDAV calendar with a new password (same server, user and collection): it is active again after a good first sync. */
export async function reconnectCaldav(db: Executor, customerId: string, ownerEmail: string, calendarId: string, password: string, now: Date): Promise<{ calendar: CalendarRow; sync: SyncResult }> {
  const row = await ownerCalendar(db, customerId, ownerEmail, calendarId);
  if (row.type !== 'caldav') throw new DomainError('invalid_request', 'Only a CalDAV calendar is reconnected with a password; reconnect other providers through their sign-in');
  const s = row.settings as CaldavSettings;
  return connectCaldav(db, customerId, ownerEmail, { serverUrl: s.serverUrl, username: s.username, password, calendarUrl: s.calendarUrl }, now);
}

/** An owner's calendars, primary first. */
export async function listCalendars(db: Executor, customerId: string, ownerEmail: string): Promise<CalendarRow[]> {
  const owner = await getOwner(db, customerId, ownerEmail);
  return db.select().from(calendars).where(eq(calendars.ownerId, owner.id)).orderBy(desc(calendars.isPrimary), asc(calendars.createdAt));
}

async function ownerCalendar(db: Executor, customerId: string, ownerEmail: string, calendarId: string): Promise<CalendarRow> {
  const owner = await getOwner(db, customerId, ownerEmail);
  // A malformed id is just an unknown one (never a database error).
  const [row] = isUuid(calendarId) ? await db.select().from(calendars).where(and(eq(calendars.id, calendarId), eq(calendars.ownerId, owner.id))) : [];
  if (!row) throw new DomainError('CALENDAR_NOT_FOUND', `${owner.email} has no such calendar`);
  return row;
}

/** Make a calendar the primary one, and/or say whether its events count as busy time. */
export async function updateCalendar(
  db: Executor,
  customerId: string,
  ownerEmail: string,
  calendarId: string,
  patch: { makePrimary?: boolean; checkConflicts?: boolean },
  now: Date,
): Promise<CalendarRow> {
  const row = await ownerCalendar(db, customerId, ownerEmail, calendarId);
  if (patch.makePrimary && row.status === 'disconnected') throw new DomainError('invalid_request', 'A disconnected calendar cannot be primary; reconnect it first');
  await db.transaction(async (tx) => {
    if (patch.makePrimary) await tx.update(calendars).set({ isPrimary: false, updatedAt: now }).where(and(eq(calendars.ownerId, row.ownerId), eq(calendars.isPrimary, true), ne(calendars.id, row.id)));
    await tx
      .update(calendars)
      .set({ updatedAt: now, ...(patch.makePrimary ? { isPrimary: true } : {}), ...(patch.checkConflicts !== undefined ? { checkConflicts: patch.checkConflicts } : {}) })
      .where(eq(calendars.id, row.id));
  });
  const [updated] = await db.select().from(calendars).where(eq(calendars.id, row.id));
  return updated;
}

/** Disconnect: credentials forgotten, mirror dropped; the calendar no longer counts or resolves (reconnect by connecting again). */
export async function disconnectCalendar(db: Executor, customerId: string, ownerEmail: string, calendarId: string, now: Date): Promise<CalendarRow> {
  const row = await ownerCalendar(db, customerId, ownerEmail, calendarId);
  if (row.type === 'internal') throw new DomainError('invalid_request', 'The internal calendar cannot be disconnected');
  await db.transaction(async (tx) => {
    await tx.update(calendars).set({ status: 'disconnected', credentials: null, syncState: null, lastSyncedAt: null, syncLeaseUntil: null, updatedAt: now }).where(eq(calendars.id, calendarId));
    await tx.delete(calendarEvents).where(eq(calendarEvents.calendarId, calendarId));
  });
  const [updated] = await db.select().from(calendars).where(eq(calendars.id, row.id));
  return updated;
}

export function calendarView(c: CalendarRow) {
  return {
    calendar_id: c.id,
    type: c.type,
    display_name: c.displayName,
    is_primary: c.isPrimary,
    status: c.status,
    check_conflicts: c.checkConflicts,
    last_synced_at: c.type === 'internal' ? null : (c.lastSyncedAt?.toISOString() ?? null),
    last_sync_error: c.lastSyncError,
  };
}

function sameUrl(a: string, b: string): boolean {
  const norm = (u: string) => {
    try {
      return new URL(u).href.replace(/\/+$/, '');
    } catch {
      return u.replace(/\/+$/, '');
    }
  };
  return norm(a) === norm(b);
}

export type OAuthConnectInput = { code: string; codeVerifier: string; redirectUri: string; calendarId?: string; makePrimary?: boolean; checkConflicts?: boolean };

/** The end of the Google OAuth flow: exchange the code (PKCE), store the sealed tokens, run the first sync. Reconnects an existing one. */
export function connectGoogle(db: Executor, customerId: string, ownerEmail: string, input: OAuthConnectInput, now: Date) {
  return connectOAuth(
    db,
    customerId,
    ownerEmail,
    'google',
    () => exchangeGoogleCode(input, now),
    async (tokens) => {
      const list = await listGoogleCalendars(tokens as GoogleCredentials, AbortSignal.timeout(15_000));
      const wanted = input.calendarId ?? 'primary';
      const found = wanted === 'primary' ? list.find((c) => c.primary) : list.find((c) => c.id === wanted);
      if (!found && wanted !== 'primary') throw new DomainError('invalid_request', `The Google account has no writable calendar ${wanted}`);
      return { calendarId: wanted, displayName: found?.name ?? 'Google Calendar' };
    },
    input,
    now,
  );
}

/** The same for Microsoft 365 (the calendar is the account's default calendar). */
export function connectMicrosoft(db: Executor, customerId: string, ownerEmail: string, input: OAuthConnectInput, now: Date) {
  return connectOAuth(
    db,
    customerId,
    ownerEmail,
    'microsoft',
    () => exchangeMicrosoftCode(input, now),
    async (tokens) => {
      const list = await listMicrosoftCalendars(tokens as MicrosoftCredentials, AbortSignal.timeout(15_000));
      return { calendarId: 'default', displayName: list.find((c) => c.primary)?.name ?? 'Outlook calendar' };
    },
    input,
    now,
  );
}

async function connectOAuth(
  db: Executor,
  customerId: string,
  ownerEmail: string,
  type: 'google' | 'microsoft',
  exchange: () => Promise<Record<string, unknown>>,
  choose: (tokens: Record<string, unknown>) => Promise<{ calendarId: string; displayName: string }>,
  input: OAuthConnectInput,
  now: Date,
): Promise<{ calendar: CalendarRow; sync: SyncResult }> {
  const owner = await getOwner(db, customerId, ownerEmail);
  let tokens;
  let chosen;
  try {
    tokens = await exchange();
    // The account's calendars: the one connected is named after its entry.
    chosen = await choose(tokens);
  } catch (err) {
    const name = type === 'google' ? 'Google' : 'Microsoft 365';
    if (err instanceof ProviderAuthError || err instanceof ProviderUnavailableError)
      throw new DomainError('invalid_request', `Could not connect the ${name} calendar: ${err.message}`, { details: { oauth: err instanceof ProviderAuthError ? 'grant_refused' : 'provider_unavailable' } });
    throw err;
  }
  const { calendarId, displayName } = chosen;
  const existing = (await db.select().from(calendars).where(and(eq(calendars.ownerId, owner.id), eq(calendars.type, type)))).find((c) => c.settings.calendarId === calendarId);
  return storeConnection(db, { customerId, ownerId: owner.id, existing, type, displayName, settings: { calendarId }, credentials: sealSecret(tokens), input }, now);
}

/**
 * Store a connection (new, or a reconnect of the same provider calendar) as
 * active with fresh credentials, make it primary if asked, and sync it once.
 */
async function storeConnection(
  db: Executor,
  c: {
    customerId: string;
    ownerId: string;
    existing: CalendarRow | undefined;
    type: string;
    displayName: string;
    settings: Record<string, unknown>;
    credentials: ReturnType<typeof sealSecret>;
    input: { makePrimary?: boolean; checkConflicts?: boolean };
  },
  now: Date,
): Promise<{ calendar: CalendarRow; sync: SyncResult }> {
  const id = c.existing?.id ?? newId();
  await db.transaction(async (tx) => {
    if (c.input.makePrimary) await tx.update(calendars).set({ isPrimary: false, updatedAt: now }).where(and(eq(calendars.ownerId, c.ownerId), eq(calendars.isPrimary, true), ne(calendars.id, id)));
    const fields = {
      status: 'active' as const,
      displayName: c.displayName,
      settings: c.settings,
      credentials: c.credentials,
      syncState: null,
      lastSyncError: null,
      syncLeaseUntil: null,
      updatedAt: now,
      ...(c.input.makePrimary ? { isPrimary: true } : {}),
      ...(c.input.checkConflicts !== undefined ? { checkConflicts: c.input.checkConflicts } : {}),
    };
    if (c.existing) await tx.update(calendars).set(fields).where(eq(calendars.id, id));
    else await tx.insert(calendars).values({ id, customerId: c.customerId, ownerId: c.ownerId, type: c.type, isPrimary: false, ...fields, createdAt: now });
  });
  const sync = await syncCalendar(db, id, now);
  const [calendar] = await db.select().from(calendars).where(eq(calendars.id, id));
  return { calendar, sync };
}
