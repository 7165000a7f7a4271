import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectEnvelope, newAgent, newCustomer, uniqueEmail, type ApiResponse, type TestCustomer } from '../../helpers/app';

let admin: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
});

function expectUnauthorized(res: ApiResponse, code: string) {
  expectEnvelope(res, 401, code);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  expect(res.body.pending_notifications).toEqual([]);
}

describe('bearer authentication on /v1', () => {
  it('answers 401 unknown_api_key without an Authorization header', async () => {
    expectUnauthorized(await api('GET', '/v1/meeting-classes'), 'unknown_api_key');
  });

  it('answers 401 unknown_api_key for a malformed header or a non-ak_ token', async () => {
    expectUnauthorized(await api('GET', '/v1/meeting-classes', { headers: { authorization: 'Basic dXNlcjpwYXNz' } }), 'unknown_api_key');
    expectUnauthorized(await api('GET', '/v1/meeting-classes', { key: 'rc_notanapikey' }), 'unknown_api_key');
    expectUnauthorized(await api('GET', '/v1/meeting-classes', { headers: { authorization: 'Bearer' } }), 'unknown_api_key');
  });

  it('answers 401 unknown_api_key for a well-formed key that matches nothing', async () => {
    expectUnauthorized(await api('GET', '/v1/meeting-classes', { key: 'ak_' + 'x'.repeat(43) }), 'unknown_api_key');
  });

  it('accepts the key sent unmodified and rejects a modified one', async () => {
    expect((await api('GET', '/v1/meeting-classes', { key: admin.key })).status).toBe(200);
    expectUnauthorized(await api('GET', '/v1/meeting-classes', { key: admin.key.slice(0, -1) + (admin.key.endsWith('A') ? 'B' : 'A') }), 'unknown_api_key');
  });

  it('answers 401 api_key_revoked for a revoked key, at once', async () => {
    const agent = await newAgent(admin, ['manage_customer']);
    expect((await api('GET', '/v1/meeting-classes', { key: agent.key })).status).toBe(200);
    const keys = await api('POST', `/v1/agents/${agent.agentId}/keys`, { key: admin.key, body: { name: 'second' } });
    const revoke = await api('DELETE', `/v1/agents/${agent.agentId}/keys/${keys.body.key_id}`, { key: admin.key });
    expect(revoke.status).toBe(200);
    expect(revoke.body.key_id).toBe(keys.body.key_id);
    expectUnauthorized(await api('GET', '/v1/meeting-classes', { key: keys.body.api_key }), 'api_key_revoked');
    // the agent's other key still works
    expect((await api('GET', '/v1/meeting-classes', { key: agent.key })).status).toBe(200);
  });

  it('answers 401 agent_disabled when the key\'s agent is disabled, and works again when re-enabled', async () => {
    const agent = await newAgent(admin, ['manage_customer']);
    expect((await api('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { disabled: true } })).body.disabled).toBe(true);
    expectUnauthorized(await api('GET', '/v1/meeting-classes', { key: agent.key }), 'agent_disabled');
    await api('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { disabled: false } });
    expect((await api('GET', '/v1/meeting-classes', { key: agent.key })).status).toBe(200);
  });
});

describe('permissions and owner scope', () => {
  it('answers 403 permission_denied:<perm> naming the missing permission', async () => {
    // GET /v1/meeting-classes accepts manage_customer or read_availability; a refusal names the first
    const agent = await newAgent(admin, ['create_holds']);
    const res = await api('GET', '/v1/meeting-classes', { key: agent.key });
    expectEnvelope(res, 403, 'permission_denied:manage_customer');
    const res2 = await api('POST', '/v1/agents', { key: agent.key, body: { name: 'x', owner_scope: 'org:*', permissions: [] } });
    expectEnvelope(res2, 403, 'permission_denied:manage_agents');
  });

  it('answers 403 owner_scope_denied when a user-scoped agent names another owner', async () => {
    const mine = uniqueEmail('mine');
    const other = uniqueEmail('other');
    for (const email of [mine, other]) {
      expect((await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'UTC' } })).status).toBe(201);
    }
    const scoped = await newAgent(admin, ['manage_customer'], `user:${mine}`);
    expectEnvelope(await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(other)}`, { key: scoped.key }), 403, 'owner_scope_denied');
    // its own owner, named or implied
    expect((await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(mine.toUpperCase())}`, { key: scoped.key })).status).toBe(200);
    const implied = await api('GET', '/v1/schedule-rules', { key: scoped.key });
    expect(implied.status).toBe(200);
    expect(implied.body.owner_email).toBe(mine);
  });

  it('requires owner_email from an org:* agent (400)', async () => {
    const err = expectEnvelope(await api('GET', '/v1/schedule-rules', { key: admin.key }), 400, 'invalid_request');
    expect(err.details.fields[0].path).toBe('query.owner_email');
  });

  it('lets an agent grant only permissions and scope it has itself', async () => {
    const manager = await newAgent(admin, ['manage_agents', 'read_availability'], 'user:someone@example.com');
    expectEnvelope(
      await api('POST', '/v1/agents', { key: manager.key, body: { name: 'x', owner_scope: 'user:someone@example.com', permissions: ['preempt'] } }),
      403,
      'permission_denied:preempt',
    );
    expectEnvelope(
      await api('POST', '/v1/agents', { key: manager.key, body: { name: 'x', owner_scope: 'org:*', permissions: ['read_availability'] } }),
      403,
      'owner_scope_denied',
    );
    const ok = await api('POST', '/v1/agents', { key: manager.key, body: { name: 'x', owner_scope: 'user:SOMEONE@example.com', permissions: ['read_availability'] } });
    expect(ok.status).toBe(201);
    expect(ok.body.owner_scope).toBe('user:someone@example.com');
  });
});
