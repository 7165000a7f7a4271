import ICAL from 'ical.js';
import { calendarMultiGet, calendarQuery, createAccount, deleteCalendarObject, fetchCalendars, propfind, syncCollection, createCalendarObject, updateCalendarObject, type DAVCalendar, type DAVResponse } from 'tsdav';
import { outboundFetch, OutboundRefusedError } from '../outbound/guard';
import { ProviderAuthError, ProviderUnavailableError, registerProvider, type BookingEvent, type CalendarProvider, type EventRef, type ListResult, type ProviderInput, type SyncState } from './provider';

/**
 * CalDAV through tsdav (docs/calendars.md). tsdav does not throw on HTTP
 * errors, so every request goes through `guardedFetch`, which sends it through
 * the outbound guard (server/domain/outbound/guard.ts: no private or reserved
 * address unless OUTBOUND_ALLOW_PRIVATE, redirects re-checked; its refusal
 * passes through as OutboundRefusedError), adds Basic authentication and the
 * abort signal and turns 401/403 into ProviderAuthError and network failures
 * and 5xx into ProviderUnavailableError.
 *
 * Sync, where the server offers WebDAV sync-collection (RFC 6578; Radicale,
 * Nextcloud, iCloud, Fastmail do): the first listing is a time-range
 * calendar-query (hrefs and etags) and a calendar-multiget, and the
 * collection's `DAV:sync-token` read just before it is stored; each later
 * sync is one sync-collection REPORT from that token, which answers only the
 * objects changed since (with their calendar data) and the removed ones (404).
 * A token the server no longer accepts (403 with `DAV:valid-sync-token`) means
 * a full listing again. Without sync-collection: the collection's ctag says
 * whether anything changed; if so the time-range calendar-query lists hrefs
 * and etags and a calendar-multiget fetches only the objects whose etag changed.
 */
export type CaldavSettings = { serverUrl: string; username: string; calendarUrl?: string };
export type CaldavCredentials = { password: string };
/** With `syncToken` the etags are not kept (sync-collection names the changes itself). */
type CaldavState = { ctag: string | null; etags: Record<string, string>; syncToken?: string | null };

/** The server refused a stored sync token (RFC 6578 3.2 `DAV:valid-sync-token`): list everything again. */
class InvalidSyncTokenError extends Error {}

function guardedFetch(username: string, password: string, signal?: AbortSignal): typeof fetch {
  const auth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const send = outboundFetch({ purpose: 'caldav' });
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', auth);
    let res: Response;
    try {
      res = await send(input, { ...init, headers, signal: signal ?? init.signal });
    } catch (err) {
      if (err instanceof OutboundRefusedError) throw err;
      throw new ProviderUnavailableError(`CalDAV server unreachable: ${(err as Error).message}`);
    }
    // A refused sync token is a 403 too, but not a credential failure.
    if (res.status === 403 && /valid-sync-token/.test(await res.clone().text().catch(() => ''))) throw new InvalidSyncTokenError('the server no longer accepts the sync token');
    if (res.status === 401 || res.status === 403) throw new ProviderAuthError(`CalDAV server refused the credentials (HTTP ${res.status})`);
    if (res.status >= 500) throw new ProviderUnavailableError(`CalDAV server error (HTTP ${res.status})`);
    return res;
  }) as typeof fetch;
}

/** The calendars of a CalDAV account (the connect flow lets the owner choose). */
export async function discoverCaldavCalendars(settings: CaldavSettings, credentials: CaldavCredentials, signal?: AbortSignal): Promise<{ url: string; displayName: string }[]> {
  const f = guardedFetch(settings.username, credentials.password, signal);
  const account = await createAccount({ account: { serverUrl: settings.serverUrl, accountType: 'caldav' }, fetch: f });
  const calendars = await fetchCalendars({ account, fetch: f });
  return calendars.map((c) => ({ url: c.url, displayName: typeof c.displayName === 'string' && c.displayName ? c.displayName : c.url }));
}

function bookingIcs(ev: BookingEvent, now: Date): string {
  const cal = new ICAL.Component(['vcalendar', [], []]);
  cal.addPropertyWithValue('prodid', '-//agent-scheduler//EN');
  cal.addPropertyWithValue('version', '2.0');
  const vevent = new ICAL.Component('vevent');
  vevent.addPropertyWithValue('uid', ev.uid);
  vevent.addPropertyWithValue('dtstamp', ICAL.Time.fromJSDate(now, true));
  vevent.addPropertyWithValue('dtstart', ICAL.Time.fromJSDate(ev.start, true));
  vevent.addPropertyWithValue('dtend', ICAL.Time.fromJSDate(ev.end, true));
  vevent.addPropertyWithValue('sequence', ev.sequence);
  vevent.addPropertyWithValue('summary', ev.title);
  if (ev.description) vevent.addPropertyWithValue('description', ev.description);
  cal.addSubcomponent(vevent);
  return cal.toString() + '\r\n';
}

class CaldavProvider implements CalendarProvider {
  constructor(
    private readonly settings: CaldavSettings,
    private readonly credentials: CaldavCredentials,
  ) {}

  private fetcher(signal: AbortSignal) {
    return guardedFetch(this.settings.username, this.credentials.password, signal);
  }

  private calendar(): DAVCalendar {
    if (!this.settings.calendarUrl) throw new Error('CalDAV calendar not chosen');
    return { url: this.settings.calendarUrl };
  }

  async listEvents(range: { start: Date; end: Date }, state: SyncState | null, signal: AbortSignal): Promise<ListResult> {
    const f = this.fetcher(signal);
    const prev = state as CaldavState | null;
    const url = this.calendar().url;
    if (prev?.syncToken) {
      try {
        return await this.changesSince(url, prev.syncToken, f);
      } catch (err) {
        if (!(err instanceof InvalidSyncTokenError)) throw err;
        return { ...(await this.fullListing(range, null, f)), full: true };
      }
    }
    return this.fullListing(range, prev, f);
  }

  /** One sync-collection REPORT: the objects changed since `token` with their data, and the removed ones. */
  private async changesSince(url: string, token: string, f: typeof fetch): Promise<ListResult> {
    const res = await syncCollection({ url, props: { 'd:getetag': {}, 'c:calendar-data': {} }, syncLevel: 1, syncToken: token, fetch: f });
    const next = syncTokenOf(res);
    if (!next) throw new ProviderUnavailableError('CalDAV sync-collection answered without a sync token');
    const changed = [];
    const removed: string[] = [];
    const missing: string[] = [];
    for (const r of res) {
      if (!r.href) continue;
      const href = new URL(r.href, url).href;
      if (sameCollection(href, url)) continue;
      if (r.status === 404) removed.push(href);
      else if (r.ok) {
        const ics = calendarDataOf(r);
        if (ics) changed.push({ resource: href, etag: r.props?.getetag ? String(r.props.getetag) : null, ics });
        else missing.push(href);
      }
    }
    // A server that names changes without their data: fetch those.
    if (missing.length) changed.push(...(await this.multiGet(url, missing, f)));
    return { changed, removed, state: { ctag: null, etags: {}, syncToken: next } };
  }

  /** Everything in the range (calendar-query + multiget of the objects whose etag changed since `prev`), with the collection's sync token or ctag. */
  private async fullListing(range: { start: Date; end: Date }, prev: CaldavState | null, f: typeof fetch): Promise<ListResult> {
    const url = this.calendar().url;
    // Read before listing, so a change made during the listing shows up next time.
    const tokens = await propfind({ url, props: { 'd:sync-token': {}, 'cs:getctag': {} }, depth: '0', fetch: f });
    const syncToken = tokens[0]?.props?.syncToken ? String(tokens[0].props.syncToken) : null;
    const ctag = tokens[0]?.props?.getctag ? String(tokens[0].props.getctag) : null;
    if (prev && !syncToken && ctag && prev.ctag === ctag) return { changed: [], removed: [], state: prev };
    const listing = await calendarQuery({
      url,
      props: { 'd:getetag': {} },
      filters: {
        'c:comp-filter': {
          _attributes: { name: 'VCALENDAR' },
          'c:comp-filter': { _attributes: { name: 'VEVENT' }, 'c:time-range': { _attributes: { start: icalUtc(range.start), end: icalUtc(range.end) } } },
        },
      },
      depth: '1',
      fetch: f,
    });
    const etags: Record<string, string> = {};
    for (const r of listing) {
      if (!r.href || !r.ok) continue;
      const href = new URL(r.href, url).href;
      if (sameCollection(href, url)) continue;
      etags[href] = String(r.props?.getetag ?? '');
    }
    const before = prev?.etags ?? {};
    const changedHrefs = Object.keys(etags).filter((h) => !etags[h] || before[h] !== etags[h]);
    const removed = Object.keys(before).filter((h) => !(h in etags));
    const changed = changedHrefs.length ? await this.multiGet(url, changedHrefs, f) : [];
    return { changed, removed, state: syncToken ? { ctag, etags: {}, syncToken } : { ctag, etags } };
  }

  private async multiGet(url: string, hrefs: string[], f: typeof fetch) {
    const got = await calendarMultiGet({ url, props: { 'd:getetag': {}, 'c:calendar-data': {} }, objectUrls: hrefs.map((h) => new URL(h).pathname), depth: '1', fetch: f });
    const out = [];
    for (const r of got) {
      if (!r.href || !r.ok) continue;
      const ics = calendarDataOf(r);
      if (ics) out.push({ resource: new URL(r.href, url).href, etag: r.props?.getetag ? String(r.props.getetag) : null, ics });
    }
    return out;
  }

  async putBookingEvent(event: BookingEvent, existing: EventRef | null, signal: AbortSignal): Promise<EventRef> {
    const f = this.fetcher(signal);
    const ics = bookingIcs(event, new Date());
    const calendar = this.calendar();
    const res = existing
      ? await updateCalendarObject({ calendarObject: { url: existing.resource, data: ics, etag: existing.etag ?? undefined }, fetch: f })
      : await createCalendarObject({ calendar, iCalString: ics, filename: `${encodeURIComponent(event.uid)}.ics`, fetch: f });
    if (!res.ok) throw new Error(`CalDAV refused the booking event (HTTP ${res.status})`);
    const resource = existing?.resource ?? new URL(`${encodeURIComponent(event.uid)}.ics`, calendar.url.endsWith('/') ? calendar.url : `${calendar.url}/`).href;
    return { resource, etag: res.headers.get('etag') };
  }

  async deleteBookingEvent(ref: EventRef, signal: AbortSignal): Promise<void> {
    const res = await deleteCalendarObject({ calendarObject: { url: ref.resource, etag: undefined }, fetch: this.fetcher(signal) });
    if (!res.ok && res.status !== 404) throw new Error(`CalDAV refused to delete the booking event (HTTP ${res.status})`);
  }
}

function calendarDataOf(r: DAVResponse): string | null {
  const data = r.props?.calendarData;
  const ics = typeof data === 'string' ? data : data?._cdata;
  return typeof ics === 'string' ? ics : null;
}

/** The new token of a sync-collection answer (the multistatus's own `DAV:sync-token`). */
function syncTokenOf(res: DAVResponse[]): string | null {
  const raw = res[0]?.raw as { multistatus?: { syncToken?: unknown } } | undefined;
  const t = raw?.multistatus?.syncToken;
  return t === undefined || t === null || t === '' ? null : String(t);
}

function sameCollection(href: string, url: string): boolean {
  return href.replace(/\/$/, '') === url.replace(/\/$/, '');
}

function icalUtc(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

registerProvider('caldav', (input: ProviderInput) => new CaldavProvider(input.settings as CaldavSettings, input.credentials as CaldavCredentials));
