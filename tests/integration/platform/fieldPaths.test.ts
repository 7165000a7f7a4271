import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectEnvelope, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

/**
 * Domain errors name domain fields (`end`, `window`, `cursor`); the REST
 * wrapper answers them at the request path the operation carries them in.
 */
let admin: TestCustomer;
let owner: string;
beforeAll(async () => {
  admin = await newCustomer();
  owner = uniqueEmail('fields');
  expect((await api('POST', '/v1/owners', { key: admin.key, body: { email: owner, time_zone: 'UTC' } })).status).toBe(201);
  expect((await api('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'fields', priority: 10 } })).status).toBe(201);
});

const fieldsOf = (err: { details?: unknown }) => (err.details as { fields: { path: string; message: string }[] }).fields;

describe('field errors raised by the domain', () => {
  it('name body fields as body.<field>', async () => {
    const evaluate = expectEnvelope(
      await api('POST', '/v1/arbitration/evaluate', { key: admin.key, body: { owner_email: owner, meeting_class: 'fields', start: '2031-01-06T10:00:00Z', end: '2031-01-06T09:00:00Z' } }),
      400,
      'invalid_request',
    );
    // evaluate validates exactly like the booking it simulates (docs/reliability.md "Limits on work per request")
    expect(evaluate.message).toBe('A booking must span 5 to 480 minutes (end after start)');
    expect(fieldsOf(evaluate)).toEqual([{ path: 'body.end', message: 'span must be 5 to 480 minutes' }]);

    const search = expectEnvelope(
      await api('POST', '/v1/availability/search', { key: admin.key, body: { owner_email: owner, meeting_class: 'fields', duration_minutes: 30, window: { start: '2031-01-06T10:00:00Z', end: '2031-01-06T09:00:00Z' } } }),
      400,
      'invalid_request',
    );
    expect(fieldsOf(search)).toEqual([{ path: 'body.window', message: 'end must be after start' }]);

    const agent = expectEnvelope(await api('POST', '/v1/agents', { key: admin.key, body: { name: 'x', owner_scope: 'team:all', permissions: [] } }), 400, 'invalid_request');
    expect(fieldsOf(agent)).toEqual([{ path: 'body.owner_scope', message: 'Invalid owner_scope' }]);
  });

  it('name query fields as query.<field>', async () => {
    const audit = expectEnvelope(await api('GET', '/v1/audit-log?cursor=not-a-cursor', { key: admin.key }), 400, 'invalid_request');
    expect(audit.message).toBe('cursor is not one this API returned');
    expect(fieldsOf(audit)).toEqual([{ path: 'query.cursor', message: 'Invalid cursor' }]);
    const links = expectEnvelope(await api('GET', '/v1/public-scheduling/links?cursor=not-a-cursor', { key: admin.key }), 400, 'invalid_request');
    expect(fieldsOf(links)).toEqual([{ path: 'query.cursor', message: 'Invalid cursor' }]);
  });
});
