import ICAL from 'ical.js';
import { calendarMultiGet, calendarQuery, createAccount, deleteCalendarObject, fetchCalendars, isCollectionDirty, createCalendarObject, updateCalendarObject, type DAVCalendar } from 'tsdav';
import { ProviderAuthError, ProviderUnavailableError, registerProvider, type BookingEvent, type CalendarProvider, type EventRef, type ListResult, type ProviderInput, type SyncState } from './provider';

/**
 * CalDAV through tsdav (docs/calendars.md). tsdav does not throw on HTTP
 * errors, so every request goes through `guardedFetch`, which adds Basic
 * authentication and the abort signal and turns 401/403 into
 * ProviderAuthError and network failures and 5xx into
 * ProviderUnavailableError. Sync: the collection's ctag says whether
 * anything changed; if so a time-range calendar-query lists hrefs and etags
 * and a calendar-multiget fetches only the objects whose etag changed.
 */
export type CaldavSettings = { serverUrl: string; username: string; calendarUrl?: string };
export type CaldavCredentials = { password: string };
type CaldavState = { ctag: string | null; etags: Record<string, string> };

function guardedFetch(username: string, password: string, signal?: AbortSignal): typeof fetch {
  const auth = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  return (async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', auth);
    let res: Response;
    try {
      res = await fetch(input, { ...init, headers, signal: signal ?? init.signal });
    } catch (err) {
      throw new ProviderUnavailableError(`CalDAV server unreachable: ${(err as Error).message}`);
    }
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

export function bookingIcs(ev: BookingEvent, now: Date): string {
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

export class CaldavProvider implements CalendarProvider {
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
    const prev = (state as CaldavState | null) ?? { ctag: null, etags: {} };
    const url = this.calendar().url;
    const { isDirty, newCtag } = await isCollectionDirty({ collection: { url, ctag: prev.ctag ?? undefined }, fetch: f });
    if (state && !isDirty && newCtag) return { changed: [], removed: [], state: prev };
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
      if (href.replace(/\/$/, '') === url.replace(/\/$/, '')) continue;
      etags[href] = String(r.props?.getetag ?? '');
    }
    const changedHrefs = Object.keys(etags).filter((h) => !etags[h] || prev.etags[h] !== etags[h]);
    const removed = Object.keys(prev.etags).filter((h) => !(h in etags));
    const changed = [];
    if (changedHrefs.length) {
      const got = await calendarMultiGet({
        url,
        props: { 'd:getetag': {}, 'c:calendar-data': {} },
        objectUrls: changedHrefs.map((h) => new URL(h).pathname),
        depth: '1',
        fetch: f,
      });
      for (const r of got) {
        if (!r.href || !r.ok) continue;
        const data = r.props?.calendarData;
        const ics = typeof data === 'string' ? data : data?._cdata;
        if (typeof ics !== 'string') continue;
        changed.push({ resource: new URL(r.href, url).href, etag: r.props?.getetag ? String(r.props.getetag) : null, ics });
      }
    }
    return { changed, removed, state: { ctag: newCtag ?? null, etags } };
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

function icalUtc(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}

registerProvider('caldav', (input: ProviderInput) => new CaldavProvider(input.settings as CaldavSettings, input.credentials as CaldavCredentials));
