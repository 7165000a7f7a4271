import { getConfig } from '@/server/config';
import { tokenRequest, type OAuthEndpoint } from './oauth';
export { pkcePair } from './oauth';
import { ProviderAuthError, ProviderUnavailableError, registerProvider, type BookingEvent, type ConferenceResult, type CalendarProvider, type EventRef, type ListResult, type ProviderInput, type ProviderObject, type SyncState } from './provider';
import { outboundFetch } from '../outbound/guard';

/**
 * Google Calendar through its REST API (docs/calendars.md): OAuth 2.0
 * authorization code with PKCE (S256) to connect, the refresh token to renew
 * the access token, `events.list` with `singleEvents=true` (Google expands
 * recurrences) and `syncToken` for increments (410 Gone: list everything
 * again), `events.insert` with our iCalUID and `events.delete` for bookings.
 * `invalid_grant` on refresh, or 401/403 after a refresh, means the owner must
 * reconnect. Exercised against a loopback fake of these endpoints only.
 */
type GoogleSettings = { calendarId: string };
export type GoogleCredentials = { accessToken: string; refreshToken: string; expiresAt: number };

type GEvent = {
  id: string;
  iCalUID?: string;
  status?: string;
  transparency?: string;
  start?: { dateTime?: string; date?: string };
  end?: { dateTime?: string; date?: string };
};

/** The conference part of a Google event (Calendar v3 `conferenceData`, `hangoutLink`). */
type GConference = {
  hangoutLink?: string;
  conferenceData?: {
    conferenceId?: string;
    createRequest?: { status?: { statusCode?: 'pending' | 'success' | 'failure' } };
    entryPoints?: { entryPointType?: string; uri?: string }[];
  };
};

/** What Google made of a createRequest: success with a video entry point, still pending, or failure. */
function googleConference(e: GConference): ConferenceResult {
  const cd = e.conferenceData;
  const code = cd?.createRequest?.status?.statusCode;
  const video = cd?.entryPoints?.find((p) => p.entryPointType === 'video')?.uri ?? e.hangoutLink;
  if (code === 'pending') return { status: 'pending' };
  if (video && code !== 'failure') return { status: 'ready', joinUrl: video, conferenceId: cd?.conferenceId ?? null };
  return { status: 'failed', error: code === 'failure' ? 'Google could not create the Meet conference (createRequest failure)' : 'Google answered without a Meet conference' };
}

/** Where to send the owner's browser to grant access (state and verifier are kept by the caller until the callback). */
export function googleAuthorizationUrl(input: { redirectUri: string; state: string; codeChallenge: string }): string {
  const config = getConfig();
  if (!config.googleClientId) throw new Error('GOOGLE_CLIENT_ID is not configured');
  const u = new URL(config.googleAuthUrl);
  u.search = new URLSearchParams({
    client_id: config.googleClientId,
    redirect_uri: input.redirectUri,
    response_type: 'code',
    scope: 'https://www.googleapis.com/auth/calendar.events',
    access_type: 'offline',
    prompt: 'consent',
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return u.href;
}

function googleEndpoint(): OAuthEndpoint {
  const config = getConfig();
  return { url: config.googleTokenUrl, clientId: config.googleClientId ?? '', clientSecret: config.googleClientSecret ?? '', name: 'Google' };
}

/** The callback's code (with the PKCE verifier) exchanged for tokens. */
export async function exchangeGoogleCode(input: { code: string; codeVerifier: string; redirectUri: string }, now: Date): Promise<GoogleCredentials> {
  const t = await tokenRequest(googleEndpoint(), { grant_type: 'authorization_code', code: input.code, code_verifier: input.codeVerifier, redirect_uri: input.redirectUri });
  if (!t.refresh_token) throw new ProviderAuthError('Google returned no refresh token');
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: now.getTime() + t.expires_in * 1000 };
}

/** The account's calendars the owner can write to (calendarList), primary first: the connect flow names and picks from these. */
export async function listGoogleCalendars(creds: GoogleCredentials, signal?: AbortSignal): Promise<{ id: string; name: string; primary: boolean }[]> {
  let res: Response;
  try {
    res = await outboundFetch({ purpose: 'google' })(`${getConfig().googleCalendarApi}/users/me/calendarList?minAccessRole=writer`, { headers: { authorization: `Bearer ${creds.accessToken}` }, signal });
  } catch (err) {
    throw new ProviderUnavailableError(`Google Calendar unreachable: ${(err as Error).message}`);
  }
  if (res.status === 401 || res.status === 403) throw new ProviderAuthError(`Google Calendar refused access (HTTP ${res.status})`);
  if (!res.ok) throw new ProviderUnavailableError(`Google calendarList failed (HTTP ${res.status})`);
  const body = (await res.json()) as { items?: { id: string; summary?: string; summaryOverride?: string; primary?: boolean }[] };
  return (body.items ?? [])
    .map((c) => ({ id: c.id, name: c.summaryOverride || c.summary || c.id, primary: c.primary === true }))
    .sort((a, b) => Number(b.primary) - Number(a.primary));
}

const utc = (iso: string) => new Date(iso).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** A Google event (one instance: singleEvents=true) as a one-VEVENT iCalendar object for the common expansion. */
function googleEventIcs(e: GEvent): string | null {
  if (!e.start || !e.end) return null;
  const when = (k: 'DTSTART' | 'DTEND', t: { dateTime?: string; date?: string }) => (t.dateTime ? `${k}:${utc(t.dateTime)}` : `${k};VALUE=DATE:${(t.date ?? '').replace(/-/g, '')}`);
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//agent-scheduler//google//EN', 'BEGIN:VEVENT', `UID:${e.iCalUID ?? e.id}`, 'DTSTAMP:19700101T000000Z', when('DTSTART', e.start), when('DTEND', e.end)];
  if (e.transparency === 'transparent') lines.push('TRANSP:TRANSPARENT');
  lines.push('END:VEVENT', 'END:VCALENDAR');
  return lines.join('\r\n') + '\r\n';
}

class GoogleProvider implements CalendarProvider {
  private creds: GoogleCredentials;
  private renewed = false;

  constructor(
    private readonly settings: GoogleSettings,
    credentials: GoogleCredentials,
  ) {
    this.creds = { ...credentials };
  }

  renewedCredentials() {
    return this.renewed ? { ...this.creds } : null;
  }

  private async refresh(signal: AbortSignal) {
    const t = await tokenRequest(googleEndpoint(), { grant_type: 'refresh_token', refresh_token: this.creds.refreshToken }, signal);
    this.creds = { accessToken: t.access_token, refreshToken: t.refresh_token ?? this.creds.refreshToken, expiresAt: Date.now() + t.expires_in * 1000 };
    this.renewed = true;
  }

  /** One API call; an expired or rejected access token is refreshed once. */
  private async call(path: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    if (this.creds.expiresAt <= Date.now() + 30_000) await this.refresh(signal);
    const url = `${getConfig().googleCalendarApi}${path}`;
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await outboundFetch({ purpose: 'google' })(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.creds.accessToken}` }, signal });
      } catch (err) {
        throw new ProviderUnavailableError(`Google Calendar unreachable: ${(err as Error).message}`);
      }
      if (res.status === 401 && attempt === 0) {
        await this.refresh(signal);
        continue;
      }
      if (res.status === 401 || res.status === 403) throw new ProviderAuthError(`Google Calendar refused access (HTTP ${res.status})`);
      if (res.status >= 500) throw new ProviderUnavailableError(`Google Calendar error (HTTP ${res.status})`);
      return res;
    }
  }

  private eventsPath(suffix = '') {
    return `/calendars/${encodeURIComponent(this.settings.calendarId)}/events${suffix}`;
  }

  async listEvents(range: { start: Date; end: Date }, state: SyncState | null, signal: AbortSignal): Promise<ListResult> {
    const syncToken = (state?.syncToken as string | undefined) ?? null;
    const changed: ProviderObject[] = [];
    const removed: string[] = [];
    let pageToken: string | undefined;
    let full = !syncToken;
    for (;;) {
      const q = new URLSearchParams({ singleEvents: 'true', maxResults: '2500', showDeleted: syncToken && !full ? 'true' : 'false' });
      if (!full && syncToken) q.set('syncToken', syncToken);
      else {
        q.set('timeMin', range.start.toISOString());
        q.set('timeMax', range.end.toISOString());
      }
      if (pageToken) q.set('pageToken', pageToken);
      const res = await this.call(this.eventsPath(`?${q}`), { method: 'GET' }, signal);
      if (res.status === 410 && !full) {
        // The sync token expired: start over with a full listing.
        full = true;
        changed.length = 0;
        removed.length = 0;
        pageToken = undefined;
        continue;
      }
      if (!res.ok) throw new ProviderUnavailableError(`Google events.list failed (HTTP ${res.status})`);
      const body = (await res.json()) as { items?: GEvent[]; nextPageToken?: string; nextSyncToken?: string };
      for (const e of body.items ?? []) {
        if (e.status === 'cancelled') {
          removed.push(e.id);
          continue;
        }
        const ics = googleEventIcs(e);
        if (ics) changed.push({ resource: e.id, etag: null, ics });
      }
      if (body.nextPageToken) {
        pageToken = body.nextPageToken;
        continue;
      }
      return { full: full && !!syncToken ? true : undefined, changed, removed, state: { syncToken: body.nextSyncToken ?? null } };
    }
  }

  async putBookingEvent(event: BookingEvent, existing: EventRef | null, signal: AbortSignal): Promise<EventRef> {
    // A Meet link (docs/calendars.md "Video links"): conferenceData.createRequest, honoured only with conferenceDataVersion=1;
    // the requestId is the booking's UID, so a retried request asks for the same conference.
    const meet = event.conference === 'google_meet';
    const q = meet ? '?conferenceDataVersion=1' : '';
    const body = JSON.stringify({
      ...(meet ? { conferenceData: { createRequest: { requestId: event.uid.replace(/[^A-Za-z0-9-]/g, '-'), conferenceSolutionKey: { type: 'hangoutsMeet' } } } } : {}),
      iCalUID: event.uid,
      summary: event.title,
      description: event.description ?? undefined,
      start: { dateTime: event.start.toISOString(), timeZone: 'UTC' },
      end: { dateTime: event.end.toISOString(), timeZone: 'UTC' },
      sequence: event.sequence,
    });
    const res = existing
      ? await this.call(this.eventsPath(`/${encodeURIComponent(existing.resource)}${q}`), { method: 'PATCH', headers: { 'content-type': 'application/json' }, body }, signal)
      : await this.call(this.eventsPath(q), { method: 'POST', headers: { 'content-type': 'application/json' }, body }, signal);
    if (!res.ok) throw new Error(`Google refused the booking event (HTTP ${res.status})`);
    const created = (await res.json()) as { id: string; etag?: string } & GConference;
    return { resource: created.id, etag: created.etag ?? null, ...(meet ? { conference: googleConference(created) } : {}) };
  }

  async deleteBookingEvent(ref: EventRef, signal: AbortSignal): Promise<void> {
    const res = await this.call(this.eventsPath(`/${encodeURIComponent(ref.resource)}`), { method: 'DELETE' }, signal);
    if (!res.ok && res.status !== 404 && res.status !== 410) throw new Error(`Google refused to delete the booking event (HTTP ${res.status})`);
  }
}

registerProvider('google', (input: ProviderInput) => new GoogleProvider(input.settings as GoogleSettings, input.credentials as GoogleCredentials));
