import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback fake of the Google endpoints the calendar integration calls,
 * after the published request/response shapes: the OAuth token endpoint
 * (authorization_code with PKCE S256, refresh_token, `invalid_grant`) and
 * authorization endpoint (`/authorize`, which consents at once and redirects
 * back with a code), Calendar v3 calendarList, events list (timeMin/timeMax or syncToken, 410 for a dropped
 * token, cancelled items in deltas), insert and delete. Not the real service.
 */
type FakeEvent = { id: string; iCalUID: string; status: 'confirmed' | 'cancelled'; start: { dateTime: string }; end: { dateTime: string }; summary?: string; rev: number; hangoutLink?: string; conferenceData?: Record<string, unknown> };
/** What the fake's Meet answers a conferenceData.createRequest with (Calendar v3 ConferenceRequestStatus.statusCode). */
type ConferenceMode = 'success' | 'pending' | 'failure';

export type FakeGoogle = {
  url: string;
  events: Map<string, FakeEvent>;
  /** Issue an authorization code bound to this PKCE challenge. */
  issueCode(challenge: string): string;
  /** Make the current access tokens stale (the next API call answers 401). */
  expireAccessTokens(): void;
  revokeRefreshTokens(): void;
  invalidateSyncTokens(): void;
  addEvent(e: Omit<FakeEvent, 'rev' | 'status'>): void;
  cancelEvent(id: string): void;
  counts: { refresh: number; fullLists: number; deltaLists: number; gone410: number };
  /** GET /authorize (the consent screen): `deny` answers the redirect with error=access_denied. */
  authorize: { deny: boolean };
  /** The query of every /authorize request (client_id, redirect_uri, state, code_challenge, ...). */
  authorizeRequests: Record<string, string>[];
  /** How createRequests are answered from now on (default success); `pending` ones succeed on the next PATCH. */
  conference: { mode: ConferenceMode };
  close(): Promise<void>;
};

export async function startFakeGoogle(): Promise<FakeGoogle> {
  const codes = new Map<string, string>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  const events = new Map<string, FakeEvent>();
  let rev = 0;
  let tokenEpoch = 0;
  const counts = { refresh: 0, fullLists: 0, deltaLists: 0, gone410: 0 };
  const authorize = { deny: false };
  const authorizeRequests: Record<string, string>[] = [];
  const conference = { mode: 'success' as ConferenceMode };
  /**
   * conferenceData.createRequest, honoured only with ?conferenceDataVersion=1 (as Calendar v3 documents):
   * success gives a Meet conference (conferenceId, entryPoints video, hangoutLink); a conference already
   * made is kept on later writes; pending is answered pending and made on the next write.
   */
  const meet = (e: FakeEvent, b: { conferenceData?: { createRequest?: { requestId?: string; conferenceSolutionKey?: { type?: string } } } }, version: string | null) => {
    const ask = version === '1' ? b.conferenceData?.createRequest : undefined;
    const had = e.conferenceData as { createRequest?: { status?: { statusCode?: string } } } | undefined;
    if (!ask && had?.createRequest?.status?.statusCode !== 'pending') return;
    if (had && had.createRequest?.status?.statusCode === 'success') return;
    const request = { requestId: ask?.requestId ?? 'retry', conferenceSolutionKey: { type: ask?.conferenceSolutionKey?.type ?? 'hangoutsMeet' } };
    const mode = had?.createRequest?.status?.statusCode === 'pending' ? 'success' : conference.mode;
    if (mode !== 'success') {
      e.conferenceData = { createRequest: { ...request, status: { statusCode: mode } } };
      return;
    }
    const id = `${token('m').slice(2, 5)}-${token('m').slice(2, 6)}-${token('m').slice(2, 5)}`;
    e.hangoutLink = `https://meet.google.com/${id}`;
    e.conferenceData = {
      createRequest: { ...request, status: { statusCode: 'success' } },
      entryPoints: [{ entryPointType: 'video', uri: e.hangoutLink, label: `meet.google.com/${id}` }],
      conferenceSolution: { key: { type: 'hangoutsMeet' }, name: 'Google Meet' },
      conferenceId: id,
    };
  };
  const token = (p: string) => `${p}-${crypto.randomBytes(8).toString('hex')}`;
  const grant = () => {
    const a = token('at');
    access.add(a);
    return a;
  };
  const send = (res: http.ServerResponse, status: number, body?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body === undefined ? '' : JSON.stringify(body));
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname === '/token' && req.method === 'POST') {
      const p = new URLSearchParams(raw);
      if (p.get('grant_type') === 'authorization_code') {
        const challenge = codes.get(p.get('code') ?? '');
        const verifier = p.get('code_verifier') ?? '';
        if (!challenge || crypto.createHash('sha256').update(verifier).digest('base64url') !== challenge) return send(res, 400, { error: 'invalid_grant' });
        codes.delete(p.get('code')!);
        const r = token('rt');
        refresh.add(r);
        return send(res, 200, { access_token: grant(), refresh_token: r, expires_in: 3600, token_type: 'Bearer' });
      }
      if (p.get('grant_type') === 'refresh_token') {
        counts.refresh++;
        if (!refresh.has(p.get('refresh_token') ?? '')) return send(res, 400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        return send(res, 200, { access_token: grant(), expires_in: 3600, token_type: 'Bearer' });
      }
      return send(res, 400, { error: 'unsupported_grant_type' });
    }
    if (url.pathname === '/authorize' && req.method === 'GET') {
      // The consent screen, already agreed: back to redirect_uri with a code bound to the PKCE challenge
      // (or with ?error=access_denied when the test set `deny`).
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      authorizeRequests.push(Object.fromEntries(url.searchParams));
      if (authorize.deny) back.search = new URLSearchParams({ error: 'access_denied', state }).toString();
      else if (url.searchParams.get('code_challenge_method') !== 'S256' || !url.searchParams.get('code_challenge')) back.search = new URLSearchParams({ error: 'invalid_request', state }).toString();
      else {
        const c = token('code');
        codes.set(c, url.searchParams.get('code_challenge')!);
        back.search = new URLSearchParams({ code: c, state, scope: url.searchParams.get('scope') ?? '' }).toString();
      }
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/calendar/v3/users/me/calendarList' && req.method === 'GET') {
      if (!access.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) return send(res, 401, { error: { code: 401, message: 'Invalid Credentials' } });
      return send(res, 200, {
        kind: 'calendar#calendarList',
        items: [
          { kind: 'calendar#calendarListEntry', id: 'owner@example.com', summary: 'owner@example.com', primary: true, accessRole: 'owner', timeZone: 'Europe/Berlin' },
          { kind: 'calendar#calendarListEntry', id: 'team@group.calendar.google.com', summary: 'Team', accessRole: 'writer', timeZone: 'Europe/Berlin' },
        ],
      });
    }
    const m = /^\/calendar\/v3\/calendars\/([^/]+)\/events(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m) return send(res, 404, { error: { code: 404 } });
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!access.has(bearer)) return send(res, 401, { error: { code: 401, message: 'Invalid Credentials' } });
    if (req.method === 'GET' && !m[2]) {
      const syncToken = url.searchParams.get('syncToken');
      let items: FakeEvent[];
      if (syncToken) {
        const [epoch, since] = syncToken.split(':').map(Number);
        if (epoch !== tokenEpoch) {
          counts.gone410++;
          return send(res, 410, { error: { code: 410, message: 'Sync token is no longer valid, a full sync is required.' } });
        }
        counts.deltaLists++;
        items = [...events.values()].filter((e) => e.rev > since);
      } else {
        counts.fullLists++;
        const min = Date.parse(url.searchParams.get('timeMin') ?? '1970-01-01T00:00:00Z');
        const max = Date.parse(url.searchParams.get('timeMax') ?? '2999-01-01T00:00:00Z');
        items = [...events.values()].filter((e) => e.status === 'confirmed' && Date.parse(e.end.dateTime) > min && Date.parse(e.start.dateTime) < max);
      }
      return send(res, 200, { kind: 'calendar#events', items: items.map(({ rev: _r, ...e }) => e), nextSyncToken: `${tokenEpoch}:${rev}` });
    }
    if (req.method === 'POST' && !m[2]) {
      const b = JSON.parse(raw) as { iCalUID?: string; summary?: string; start: { dateTime: string }; end: { dateTime: string } };
      const id = token('ev');
      const e: FakeEvent = { id, iCalUID: b.iCalUID ?? `${id}@google.com`, status: 'confirmed', start: { dateTime: b.start.dateTime }, end: { dateTime: b.end.dateTime }, summary: b.summary, rev: ++rev };
      meet(e, b as Parameters<typeof meet>[1], url.searchParams.get('conferenceDataVersion'));
      events.set(id, e);
      return send(res, 200, { ...e, etag: `"${e.rev}"` });
    }
    if (req.method === 'PATCH' && m[2]) {
      const e = events.get(decodeURIComponent(m[2]));
      if (!e) return send(res, 404, { error: { code: 404 } });
      const b = JSON.parse(raw) as { summary?: string; start?: { dateTime: string }; end?: { dateTime: string } };
      meet(e, b as Parameters<typeof meet>[1], url.searchParams.get('conferenceDataVersion'));
      Object.assign(e, { ...(b.start ? { start: { dateTime: b.start.dateTime } } : {}), ...(b.end ? { end: { dateTime: b.end.dateTime } } : {}), ...(b.summary ? { summary: b.summary } : {}), rev: ++rev });
      return send(res, 200, { ...e, etag: `"${e.rev}"` });
    }
    if (req.method === 'DELETE' && m[2]) {
      const e = events.get(decodeURIComponent(m[2]));
      if (!e || e.status === 'cancelled') return send(res, 410, { error: { code: 410 } });
      e.status = 'cancelled';
      e.rev = ++rev;
      res.writeHead(204).end();
      return;
    }
    return send(res, 405, {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    events,
    counts,
    authorize,
    authorizeRequests,
    conference,
    issueCode(challenge) {
      const c = token('code');
      codes.set(c, challenge);
      return c;
    },
    expireAccessTokens: () => access.clear(),
    revokeRefreshTokens: () => refresh.clear(),
    invalidateSyncTokens: () => void tokenEpoch++,
    addEvent(e) {
      events.set(e.id, { ...e, status: 'confirmed', rev: ++rev });
    },
    cancelEvent(id) {
      const e = events.get(id)!;
      e.status = 'cancelled';
      e.rev = ++rev;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
