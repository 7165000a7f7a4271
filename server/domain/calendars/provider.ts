/**
 * What the service needs from a calendar provider (docs/calendars.md). Each
 * provider type (CalDAV today) implements it; sync and write-back only talk
 * to this interface, so tests can put fakes behind it.
 */
export type SyncState = Record<string, unknown>;

/** One provider object: an iCalendar text holding one event (or one series with its overrides). */
export type ProviderObject = { resource: string; etag: string | null; ics: string };

/** Changes since `state` (with no state: every object in the range). */
export type ListResult = {
  /** The provider dropped the cursor and listed everything: objects not in `changed` are gone. */
  full?: boolean;
  changed: ProviderObject[];
  /** Resources removed since `state` (delta only). */
  removed: string[];
  /** The cursor to pass next time (CalDAV: ctag and etags). */
  state: SyncState;
};

/** A booking as written to the provider: always UTC instants, a stable UID. */
export type BookingEvent = {
  uid: string;
  start: Date;
  end: Date;
  title: string;
  description?: string | null;
  /** Provider-side revision counter (iCalendar SEQUENCE). */
  sequence: number;
  /** Ask the provider to make a video meeting on the event (docs/calendars.md "Video links"); absent: leave any it has. */
  conference?: 'google_meet' | 'microsoft_teams';
};

/** The video meeting the provider made on an event: ready (join link), still being made (Google: createRequest pending), or refused. */
export type ConferenceResult = { status: 'ready'; joinUrl: string; conferenceId: string | null } | { status: 'pending' } | { status: 'failed'; error: string };

export type EventRef = { resource: string; etag: string | null; conference?: ConferenceResult };

export interface CalendarProvider {
  /** Events of the calendar; incremental from `state` where the provider can (CalDAV: ctag, then etags). */
  listEvents(range: { start: Date; end: Date }, state: SyncState | null, signal: AbortSignal): Promise<ListResult>;
  /** Create or replace the event of a booking. */
  putBookingEvent(event: BookingEvent, existing: EventRef | null, signal: AbortSignal): Promise<EventRef>;
  /** Delete the event of a booking (already gone is success). */
  deleteBookingEvent(ref: EventRef, signal: AbortSignal): Promise<void>;
  /** Credentials the provider renewed during the calls (OAuth token refresh), to store sealed; null when unchanged. */
  renewedCredentials?(): Record<string, unknown> | null;
}

/** The provider refused the stored credentials (HTTP 401/403, invalid_grant): the calendar needs re-authorisation. */
export class ProviderAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderAuthError';
  }
}

/** The provider could not be reached or answered with a server error; the mirror keeps its last state. */
export class ProviderUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderUnavailableError';
  }
}

/** What building a provider needs: the calendar's non-secret settings and its decrypted credentials. */
export type ProviderInput = { settings: Record<string, unknown>; credentials: Record<string, unknown> };
export type ProviderFactory = (input: ProviderInput) => CalendarProvider;

const factories = new Map<string, ProviderFactory>();

/** Register the implementation of a calendar type (CalDAV registers itself; tests register fakes). */
export function registerProvider(type: string, factory: ProviderFactory): void {
  factories.set(type, factory);
}

export function providerFactory(type: string): ProviderFactory | undefined {
  return factories.get(type);
}
