import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback fake of the Microsoft identity platform token endpoint and the
 * authorization endpoint (`/authorize`: consents at once, redirects back with
 * a code) and the Graph calendar calls the integration makes, after their
 * published shapes: `/me/calendars`,
 * `calendarView/delta` (paged by `@odata.nextLink`, ending in
 * `@odata.deltaLink`; removals as `@removed`; 410 for a dropped delta token),
 * `POST /me/events` (Graph assigns id and iCalUId), `PATCH /me/events/{id}` (updates the fields sent,
 * same id and iCalUId, answers the event), `DELETE /me/events/{id}`.
 * Times are answered in UTC (the client sends `Prefer: outlook.timezone="UTC"`).
 */
type GraphEvent = { id: string; iCalUId: string; subject?: string; start: { dateTime: string; timeZone: 'UTC' }; end: { dateTime: string; timeZone: 'UTC' }; removed: boolean; rev: number; isOnlineMeeting?: boolean; onlineMeeting?: { joinUrl: string; conferenceId: string } | null };

/**
 * An event made an online meeting (Graph `isOnlineMeeting: true`, `onlineMeetingProvider: teamsForBusiness`):
 * the answer carries `onlineMeeting.joinUrl` (onlineMeetingInfo). Kept on later PATCHes that do not mention it.
 */
function onlineMeeting(e: GraphEvent, b: { isOnlineMeeting?: boolean; onlineMeetingProvider?: string }) {
  if (!b.isOnlineMeeting || e.onlineMeeting) return;
  const conferenceId = String(crypto.randomInt(100_000_000, 999_999_999));
  e.isOnlineMeeting = true;
  e.onlineMeeting = { joinUrl: `https://teams.microsoft.com/l/meetup-join/19%3ameeting_${crypto.randomBytes(6).toString('hex')}%40thread.v2/0`, conferenceId };
}

export type FakeMicrosoft = {
  url: string;
  events: Map<string, GraphEvent>;
  issueCode(challenge: string): string;
  expireAccessTokens(): void;
  revokeRefreshTokens(): void;
  invalidateDeltaTokens(): void;
  addEvent(id: string, startIso: string, endIso: string): void;
  removeEvent(id: string): void;
  counts: { refresh: number; initial: number; delta: number; gone410: number; pages: number; created: number; patched: number };
  close(): Promise<void>;
};

const graphTime = (iso: string) => iso.replace('Z', '').replace(/\.\d{3}$/, '.0000000');

export async function startFakeMicrosoft(): Promise<FakeMicrosoft> {
  const codes = new Map<string, string>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  const events = new Map<string, GraphEvent>();
  const counts = { refresh: 0, initial: 0, delta: 0, gone410: 0, pages: 0, created: 0, patched: 0 };
  let rev = 0;
  let epoch = 0;
  const tok = (p: string) => `${p}-${crypto.randomBytes(8).toString('hex')}`;
  const send = (res: http.ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  let base = '';
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/token' && req.method === 'POST') {
      const p = new URLSearchParams(raw);
      const issue = () => {
        const a = tok('at');
        const r = tok('rt');
        access.add(a);
        refresh.add(r);
        return { token_type: 'Bearer', scope: 'Calendars.ReadWrite', expires_in: 3600, access_token: a, refresh_token: r };
      };
      if (p.get('grant_type') === 'authorization_code') {
        const ch = codes.get(p.get('code') ?? '');
        if (!ch || crypto.createHash('sha256').update(p.get('code_verifier') ?? '').digest('base64url') !== ch) return send(res, 400, { error: 'invalid_grant' });
        codes.delete(p.get('code')!);
        return send(res, 200, issue());
      }
      if (p.get('grant_type') === 'refresh_token') {
        counts.refresh++;
        if (!refresh.has(p.get('refresh_token') ?? '')) return send(res, 400, { error: 'invalid_grant', error_description: 'AADSTS70000: The provided grant has expired or been revoked.' });
        refresh.delete(p.get('refresh_token')!);
        return send(res, 200, issue());
      }
      return send(res, 400, { error: 'unsupported_grant_type' });
    }
    if (url.pathname === '/authorize' && req.method === 'GET') {
      // The Microsoft identity platform's consent, already given: back to redirect_uri with a code for the PKCE challenge.
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      if (url.searchParams.get('code_challenge_method') !== 'S256' || !url.searchParams.get('code_challenge')) back.search = new URLSearchParams({ error: 'invalid_request', state }).toString();
      else {
        const c = tok('code');
        codes.set(c, url.searchParams.get('code_challenge')!);
        back.search = new URLSearchParams({ code: c, state }).toString();
      }
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (!access.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return send(res, 401, { error: { code: 'InvalidAuthenticationToken' } });
    if (url.pathname === '/v1.0/me/calendars' && req.method === 'GET') {
      return send(res, 200, { value: [{ id: 'AAMkCal1', name: 'Calendar', isDefaultCalendar: true, canEdit: true }, { id: 'AAMkCal2', name: 'Birthdays', isDefaultCalendar: false, canEdit: false }] });
    }
    const view = (e: GraphEvent) => (e.removed ? { id: e.id, '@removed': { reason: 'deleted' } } : { id: e.id, iCalUId: e.iCalUId, subject: e.subject, showAs: 'busy', isAllDay: false, isCancelled: false, start: e.start, end: e.end, isOnlineMeeting: e.isOnlineMeeting ?? false, onlineMeetingProvider: e.isOnlineMeeting ? 'teamsForBusiness' : 'unknown', onlineMeeting: e.onlineMeeting ?? null });
    if (url.pathname === '/v1.0/me/calendarView/delta' && req.method === 'GET') {
      const token = url.searchParams.get('$deltatoken');
      const skip = Number(url.searchParams.get('$skip') ?? 0);
      let items: GraphEvent[];
      if (token) {
        const [e, since] = token.split('.').map(Number);
        if (e !== epoch) {
          counts.gone410++;
          return send(res, 410, { error: { code: 'SyncStateNotFound', message: 'The sync state generation is not found.' } });
        }
        counts.delta++;
        items = [...events.values()].filter((x) => x.rev > since);
      } else {
        if (!skip) counts.initial++;
        const min = Date.parse(url.searchParams.get('startDateTime')!);
        const max = Date.parse(url.searchParams.get('endDateTime')!);
        items = [...events.values()].filter((x) => !x.removed && Date.parse(`${x.end.dateTime}Z`) > min && Date.parse(`${x.start.dateTime}Z`) < max);
      }
      // Two items a page, so paging is exercised.
      const page = items.slice(skip, skip + 2);
      counts.pages++;
      if (skip + 2 < items.length) {
        const next = new URL(url.href.replace('http://fake', base));
        next.searchParams.set('$skip', String(skip + 2));
        return send(res, 200, { value: page.map(view), '@odata.nextLink': next.href });
      }
      return send(res, 200, { value: page.map(view), '@odata.deltaLink': `${base}/v1.0/me/calendarView/delta?$deltatoken=${epoch}.${rev}` });
    }
    if (url.pathname === '/v1.0/me/events' && req.method === 'POST') {
      const b = JSON.parse(raw) as { subject?: string; start: { dateTime: string }; end: { dateTime: string }; isOnlineMeeting?: boolean; onlineMeetingProvider?: string };
      const id = tok('AAMk');
      const e: GraphEvent = { id, iCalUId: `040000008200E00074C5B7101A82E008${crypto.randomBytes(8).toString('hex')}`, subject: b.subject, start: { dateTime: graphTime(`${b.start.dateTime}Z`), timeZone: 'UTC' }, end: { dateTime: graphTime(`${b.end.dateTime}Z`), timeZone: 'UTC' }, removed: false, rev: ++rev };
      onlineMeeting(e, b);
      events.set(id, e);
      counts.created++;
      return send(res, 201, { ...view(e), '@odata.etag': `W/"${e.rev}"` });
    }
    const del = /^\/v1\.0\/me\/events\/([^/]+)$/.exec(url.pathname);
    if (del && req.method === 'PATCH') {
      const e = events.get(decodeURIComponent(del[1]));
      if (!e || e.removed) return send(res, 404, { error: { code: 'ErrorItemNotFound' } });
      const b = JSON.parse(raw) as { subject?: string; start?: { dateTime: string }; end?: { dateTime: string }; isOnlineMeeting?: boolean; onlineMeetingProvider?: string };
      onlineMeeting(e, b);
      if (b.subject !== undefined) e.subject = b.subject;
      if (b.start) e.start = { dateTime: graphTime(`${b.start.dateTime}Z`), timeZone: 'UTC' };
      if (b.end) e.end = { dateTime: graphTime(`${b.end.dateTime}Z`), timeZone: 'UTC' };
      e.rev = ++rev;
      counts.patched++;
      return send(res, 200, { ...view(e), '@odata.etag': `W/"${e.rev}"` });
    }
    if (del && req.method === 'DELETE') {
      const e = events.get(decodeURIComponent(del[1]));
      if (!e || e.removed) return send(res, 404, { error: { code: 'ErrorItemNotFound' } });
      e.removed = true;
      e.rev = ++rev;
      res.writeHead(204).end();
      return;
    }
    return send(res, 404, { error: { code: 'NotFound' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    events,
    counts,
    issueCode(challenge) {
      const c = tok('code');
      codes.set(c, challenge);
      return c;
    },
    expireAccessTokens: () => access.clear(),
    revokeRefreshTokens: () => refresh.clear(),
    invalidateDeltaTokens: () => void epoch++,
    addEvent(id, s, e) {
      events.set(id, { id, iCalUId: `uid-${id}`, start: { dateTime: graphTime(s), timeZone: 'UTC' }, end: { dateTime: graphTime(e), timeZone: 'UTC' }, removed: false, rev: ++rev });
    },
    removeEvent(id) {
      const e = events.get(id)!;
      e.removed = true;
      e.rev = ++rev;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
