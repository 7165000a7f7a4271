import { getConfig } from '@/server/config';
import { tokenRequest, type OAuthEndpoint } from './oauth';
import { ProviderAuthError, ProviderUnavailableError, registerProvider, type BookingEvent, type CalendarProvider, type EventRef, type ListResult, type ProviderInput, type ProviderObject, type SyncState } from './provider';
import { outboundFetch } from '../outbound/guard';

/**
 * Microsoft 365 through Microsoft Graph (docs/calendars.md): OAuth 2.0
 * authorization code with PKCE, refresh tokens, `calendarView/delta` over the
 * horizon (Graph expands recurrences; `@odata.nextLink` pages, the final
 * `@odata.deltaLink` is the cursor, `@removed` items are removals, 410 means
 * start over), `POST /me/events` and `DELETE /me/events/{id}` for bookings.
 * Times are asked for in UTC (`Prefer: outlook.timezone="UTC"`). Graph sets
 * an event's iCalUId itself, so the service's own events are recognised by
 * event id. Exercised against a loopback fake only.
 */
export type MicrosoftCredentials = { accessToken: string; refreshToken: string; expiresAt: number };

type MEvent = {
  id: string;
  iCalUId?: string;
  isCancelled?: boolean;
  showAs?: string;
  isAllDay?: boolean;
  start?: { dateTime: string; timeZone?: string };
  end?: { dateTime: string; timeZone?: string };
  '@removed'?: unknown;
};

const SCOPE = 'offline_access Calendars.ReadWrite';

function endpoint(): OAuthEndpoint {
  const c = getConfig();
  return { url: c.microsoftTokenUrl, clientId: c.microsoftClientId ?? '', clientSecret: c.microsoftClientSecret ?? '', name: 'Microsoft' };
}

export function microsoftAuthorizationUrl(input: { redirectUri: string; state: string; codeChallenge: string }): string {
  const c = getConfig();
  if (!c.microsoftClientId) throw new Error('MICROSOFT_CLIENT_ID is not configured');
  const u = new URL(c.microsoftAuthUrl);
  u.search = new URLSearchParams({
    client_id: c.microsoftClientId,
    redirect_uri: input.redirectUri,
    response_type: 'code',
    response_mode: 'query',
    scope: SCOPE,
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
  }).toString();
  return u.href;
}

export async function exchangeMicrosoftCode(input: { code: string; codeVerifier: string; redirectUri: string }, now: Date): Promise<MicrosoftCredentials> {
  const t = await tokenRequest(endpoint(), { grant_type: 'authorization_code', code: input.code, code_verifier: input.codeVerifier, redirect_uri: input.redirectUri, scope: SCOPE });
  if (!t.refresh_token) throw new ProviderAuthError('Microsoft returned no refresh token (offline_access missing?)');
  return { accessToken: t.access_token, refreshToken: t.refresh_token, expiresAt: now.getTime() + t.expires_in * 1000 };
}

/** The account's calendars (Graph `/me/calendars`), the default one first; the service books into the default calendar. */
export async function listMicrosoftCalendars(creds: MicrosoftCredentials, signal?: AbortSignal): Promise<{ id: string; name: string; primary: boolean }[]> {
  let res: Response;
  try {
    res = await outboundFetch({ purpose: 'microsoft' })(`${getConfig().microsoftGraphApi}/me/calendars`, { headers: { authorization: `Bearer ${creds.accessToken}` }, signal });
  } catch (err) {
    throw new ProviderUnavailableError(`Microsoft Graph unreachable: ${(err as Error).message}`);
  }
  if (res.status === 401 || res.status === 403) throw new ProviderAuthError(`Microsoft Graph refused access (HTTP ${res.status})`);
  if (!res.ok) throw new ProviderUnavailableError(`Microsoft Graph /me/calendars failed (HTTP ${res.status})`);
  const body = (await res.json()) as { value?: { id: string; name?: string; isDefaultCalendar?: boolean }[] };
  return (body.value ?? []).map((c) => ({ id: c.id, name: c.name || c.id, primary: c.isDefaultCalendar === true })).sort((a, b) => Number(b.primary) - Number(a.primary));
}

const graphUtc = (s: string) => {
  const iso = /Z|[+-]\d\d:\d\d$/.test(s) ? s : `${s}Z`;
  return new Date(iso).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
};

function graphEventIcs(e: MEvent): string | null {
  if (!e.start || !e.end) return null;
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//agent-scheduler//graph//EN', 'BEGIN:VEVENT', `UID:${e.iCalUId ?? e.id}`, 'DTSTAMP:19700101T000000Z'];
  if (e.isAllDay) {
    // All-day events are dates: read in the owner's zone like any all-day event.
    lines.push(`DTSTART;VALUE=DATE:${e.start.dateTime.slice(0, 10).replace(/-/g, '')}`, `DTEND;VALUE=DATE:${e.end.dateTime.slice(0, 10).replace(/-/g, '')}`);
  } else lines.push(`DTSTART:${graphUtc(e.start.dateTime)}`, `DTEND:${graphUtc(e.end.dateTime)}`);
  if (e.showAs === 'free') lines.push('TRANSP:TRANSPARENT');
  lines.push('END:VEVENT', 'END:VCALENDAR');
  return lines.join('\r\n') + '\r\n';
}

class MicrosoftProvider implements CalendarProvider {
  private creds: MicrosoftCredentials;
  private renewed = false;

  constructor(credentials: MicrosoftCredentials) {
    this.creds = { ...credentials };
  }

  renewedCredentials() {
    return this.renewed ? { ...this.creds } : null;
  }

  private async refresh(signal: AbortSignal) {
    const t = await tokenRequest(endpoint(), { grant_type: 'refresh_token', refresh_token: this.creds.refreshToken, scope: SCOPE }, signal);
    this.creds = { accessToken: t.access_token, refreshToken: t.refresh_token ?? this.creds.refreshToken, expiresAt: Date.now() + t.expires_in * 1000 };
    this.renewed = true;
  }

  private async call(url: string, init: RequestInit, signal: AbortSignal): Promise<Response> {
    if (this.creds.expiresAt <= Date.now() + 30_000) await this.refresh(signal);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await outboundFetch({ purpose: 'microsoft' })(url, {
          ...init,
          headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.creds.accessToken}`, prefer: 'outlook.timezone="UTC"' },
          signal,
        });
      } catch (err) {
        throw new ProviderUnavailableError(`Microsoft Graph unreachable: ${(err as Error).message}`);
      }
      if (res.status === 401 && attempt === 0) {
        await this.refresh(signal);
        continue;
      }
      if (res.status === 401 || res.status === 403) throw new ProviderAuthError(`Microsoft Graph refused access (HTTP ${res.status})`);
      if (res.status >= 500 || res.status === 429) throw new ProviderUnavailableError(`Microsoft Graph error (HTTP ${res.status})`);
      return res;
    }
  }

  async listEvents(range: { start: Date; end: Date }, state: SyncState | null, signal: AbortSignal): Promise<ListResult> {
    const deltaLink = (state?.deltaLink as string | undefined) ?? null;
    const initial = `${getConfig().microsoftGraphApi}/me/calendarView/delta?${new URLSearchParams({ startDateTime: range.start.toISOString(), endDateTime: range.end.toISOString() })}`;
    let url = deltaLink ?? initial;
    let full = !deltaLink;
    const changed: ProviderObject[] = [];
    const removed: string[] = [];
    for (;;) {
      const res = await this.call(url, { method: 'GET' }, signal);
      if (res.status === 410 && !full) {
        full = true;
        url = initial;
        changed.length = 0;
        removed.length = 0;
        continue;
      }
      if (!res.ok) throw new ProviderUnavailableError(`Microsoft calendarView/delta failed (HTTP ${res.status})`);
      const body = (await res.json()) as { value?: MEvent[]; '@odata.nextLink'?: string; '@odata.deltaLink'?: string };
      for (const e of body.value ?? []) {
        if (e['@removed'] || e.isCancelled) {
          removed.push(e.id);
          continue;
        }
        const ics = graphEventIcs(e);
        if (ics) changed.push({ resource: e.id, etag: null, ics });
      }
      if (body['@odata.nextLink']) {
        url = body['@odata.nextLink'];
        continue;
      }
      return { full: full && !!deltaLink ? true : undefined, changed, removed, state: { deltaLink: body['@odata.deltaLink'] ?? null } };
    }
  }

  async putBookingEvent(event: BookingEvent, existing: EventRef | null, signal: AbortSignal): Promise<EventRef> {
    const api = getConfig().microsoftGraphApi;
    const body = JSON.stringify({
      subject: event.title,
      body: event.description ? { contentType: 'text', content: event.description } : undefined,
      start: { dateTime: event.start.toISOString().replace('Z', ''), timeZone: 'UTC' },
      end: { dateTime: event.end.toISOString().replace('Z', ''), timeZone: 'UTC' },
      transactionId: event.uid,
      // A Teams meeting on the event (docs/calendars.md "Video links"); Graph answers its join link in onlineMeeting.joinUrl.
      ...(event.conference === 'microsoft_teams' ? { isOnlineMeeting: true, onlineMeetingProvider: 'teamsForBusiness' } : {}),
    });
    const res = existing
      ? await this.call(`${api}/me/events/${encodeURIComponent(existing.resource)}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body }, signal)
      : await this.call(`${api}/me/events`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }, signal);
    if (!res.ok) throw new Error(`Microsoft refused the booking event (HTTP ${res.status})`);
    const created = (await res.json()) as { id: string; '@odata.etag'?: string; isOnlineMeeting?: boolean; onlineMeeting?: { joinUrl?: string; conferenceId?: string } | null };
    const ref: EventRef = { resource: created.id, etag: created['@odata.etag'] ?? null };
    if (event.conference === 'microsoft_teams') {
      const joinUrl = created.onlineMeeting?.joinUrl;
      ref.conference = joinUrl ? { status: 'ready', joinUrl, conferenceId: created.onlineMeeting?.conferenceId ?? null } : { status: 'failed', error: 'Microsoft answered without an online meeting (is Teams enabled for the account?)' };
    }
    return ref;
  }

  async deleteBookingEvent(ref: EventRef, signal: AbortSignal): Promise<void> {
    const res = await this.call(`${getConfig().microsoftGraphApi}/me/events/${encodeURIComponent(ref.resource)}`, { method: 'DELETE' }, signal);
    if (!res.ok && res.status !== 404) throw new Error(`Microsoft refused to delete the booking event (HTTP ${res.status})`);
  }
}

registerProvider('microsoft', (input: ProviderInput) => new MicrosoftProvider(input.credentials as MicrosoftCredentials));
