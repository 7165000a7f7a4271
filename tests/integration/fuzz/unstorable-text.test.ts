import { beforeAll, describe, expect, it } from 'vitest';
import { api, uniqueEmail, type ApiOptions, type ApiResponse } from '../../helpers/app';
import { buildWorld, ipPool, type World } from '../security/world';

/**
 * Regression test (found by the fuzzers; fixed by unstorableText in
 * server/http/handler.ts, which refuses such text with 400).
 *
 * 1. U+0000 (NUL) in any string the API accepts (JSON "\u0000", or %00 in a
 *    path or query value) reaches PostgreSQL, which refuses it in `text`
 *    ("invalid byte sequence for encoding "UTF8": 0x00"): 500 internal_error on
 *    both drivers, for stored fields (owner, agent, class, link, requester
 *    names, messages, ...) and for lookups (GET /public/schedules/{id}, GET
 *    /v1/audit-log?action=). Expected: 400 invalid_request for input (a
 *    lookup may also answer 404 not_found).
 * 2. Lone UTF-16 surrogates (JSON "\udc00", valid JSON, not valid Unicode):
 *    two or more in a string give 500 on PGlite (the same encoding error);
 *    on PostgreSQL they are silently stored as U+FFFD, so different inputs
 *    collide (a class named "\ude48\udd74" answers as "\ufffd\ufffd", and any
 *    other pair of lone surrogates finds it). Expected: 400 invalid_request.
 * One fix covers all: refuse strings with U+0000 or `!s.isWellFormed()` in
 * body, query and path values before the handler (server/http/handler.ts,
 * parseOrThrow, or the shared zod string schemas), as validation failures.
 */
const ip = ipPool(17);
let w: World;
beforeAll(async () => {
  w = await buildWorld(ip);
}, 120_000);

const call = (method: string, path: string, opts: ApiOptions = {}) => api(method, path, { key: w.admin.key, ip: ip(), ...opts });
const json = (text: string): ApiOptions => ({ rawBody: text, headers: { 'content-type': 'application/json' } });
const problems: string[] = [];
function expectRefused(label: string, res: ApiResponse, allowed: number[] = [400]) {
  if (!allowed.includes(res.status) || (res.status >= 400 && typeof res.body?.error?.code !== 'string')) problems.push(`${label}: ${res.status} ${res.text.slice(0, 160)}`);
}

describe('NUL in strings answers 400, never 500', () => {
  it('stored fields refuse NUL with 400 (not 500)', async () => {
    const NUL = 'a\u0000b';
    expectRefused('POST /v1/owners name', await call('POST', '/v1/owners', { body: { email: uniqueEmail(), name: NUL, time_zone: 'UTC' } }));
    expectRefused('POST /v1/agents name', await call('POST', '/v1/agents', { body: { name: NUL, owner_scope: 'org:*', permissions: [] } }));
    expectRefused('POST /v1/meeting-classes name', await call('POST', '/v1/meeting-classes', { body: { name: NUL, priority: 1 } }));
    expectRefused('PATCH link title', await call('PATCH', `/v1/public-scheduling/links/${w.linkId}`, { body: { title: NUL } }));
    expectRefused('POST /v1/bookings title', await call('POST', '/v1/bookings', { body: { owner_email: w.ownerEmail, meeting_class: 'external', start: w.day.at('15:00'), end: w.day.at('15:30'), title: NUL } }));
    expectRefused(
      'POST /public/.../booking-proposals message',
      await api('POST', `/public/schedules/${w.alias}/booking-proposals`, { ip: ip(), body: { requester_contact: { email: uniqueEmail(), name: 'Rita' }, attendees: [], message: NUL } }),
    );
    expect(problems.splice(0)).toEqual([]);
  });

  it('lookups with NUL answer 400 or 404 (not 500)', async () => {
    expectRefused('GET /public/schedules/a%00b', await api('GET', '/public/schedules/a%00b', { ip: ip() }), [400, 404]);
    expectRefused('GET /public/schedules/%00/meeting-types/x/suggested-times', await api('GET', '/public/schedules/%00/meeting-types/x/suggested-times', { ip: ip() }), [400, 404]);
    expectRefused('GET /v1/audit-log?action=%00', await call('GET', '/v1/audit-log?action=%00'), [400, 200]);
    expect(problems.splice(0)).toEqual([]);
  });
});

describe('lone surrogates answer 400 (never 500, never silently rewritten)', () => {
  const body = (name: string) => json(`{"name":"${name}","priority":1}`);

  it('a name with lone surrogates never answers 500', async () => {
    expectRefused('POST /v1/meeting-classes name "\\ude48\\udd74"', await call('POST', '/v1/meeting-classes', body('\\ude48\\udd74')), [400, 201, 409]);
    expectRefused('POST /v1/owners name "\\udd04\\udd73"', await call('POST', '/v1/owners', json(`{"email":"${uniqueEmail()}","name":"\\udd04\\udd73","time_zone":"UTC"}`)), [400, 201]);
    expect(problems.splice(0)).toEqual([]);
  });

  it('is refused with 400 invalid_request rather than stored as U+FFFD (where distinct inputs collide)', async () => {
    const first = await call('POST', '/v1/meeting-classes', body('\\udc01\\udc02'));
    const second = await call('POST', '/v1/meeting-classes', body('\\udc03\\udc04'));
    expect([first.status, first.body?.error?.code], first.text).toEqual([400, 'invalid_request']);
    expect([second.status, second.body?.error?.code], second.text).toEqual([400, 'invalid_request']);
  });
});
