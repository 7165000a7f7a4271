import { beforeAll, describe, expect, it } from 'vitest';
import { api, expectEnvelope, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { directAgents } from '../scheduling/fixtures';
import { ALL_PERMISSIONS, ipPool } from './world';

/**
 * Regression test for a privilege escalation (fixed: assertCanManage in
 * server/domain/agentService.ts). Before the fix:
 *
 * POST /v1/agents/{id}/keys and DELETE /v1/agents/{id}/keys/{key_id} check
 * only `manage_agents`: neither the caller's owner_scope nor its permissions
 * are compared with the target agent's. server/http/operations/admin.ts
 * (mintKeyOp, revokeKeyOp) pass no actor, and server/domain/agentService.ts
 * mintApiKey()/revokeApiKey() take none (createAgent/updateAgent do, through
 * assertCanGrant). So:
 *  - a `user:<a>` agent with manage_agents mints a key for any `org:*`
 *    agent of the customer (e.g. the bootstrap admin) and acts on every owner;
 *  - it can revoke the keys of `org:*` agents (denial of service);
 *  - an `org:*` agent with only manage_agents mints a key for an agent with
 *    every permission, although it "can be granted only permissions and scope
 *    the caller has" (docs/api.md "1. Keys, agents and permissions", POST /v1/agents).
 * Expected: 403 owner_scope_denied / permission_denied:<perm>, as createAgent
 * and updateAgent answer for the same grant.
 */
const ip = ipPool(15);
let admin: TestCustomer;
let ownerA: string;
let ownerB: string;
let scopedManager: string;
beforeAll(async () => {
  admin = await newCustomer();
  ownerA = uniqueEmail('a');
  ownerB = uniqueEmail('b');
  for (const email of [ownerA, ownerB]) expect((await api('POST', '/v1/owners', { key: admin.key, ip: ip(), body: { email, time_zone: 'UTC' } })).status).toBe(201);
  [{ key: scopedManager }] = await directAgents(admin, 1, ['manage_agents'], `user:${ownerA}`);
});

describe('API keys of a more powerful agent cannot be minted or revoked', () => {
  it('a user:<owner> agent cannot mint a key for an org:* agent (it would then act on every owner)', async () => {
    const minted = await api('POST', `/v1/agents/${admin.agentId}/keys`, { key: scopedManager, ip: ip(), body: {} });
    if (minted.status === 201) {
      // the impact, shown: the scoped agent now reads (and could book on) another owner's calendar
      const other = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(ownerB)}`, { key: minted.body.api_key, ip: ip() });
      expect.soft(other.status, 'the minted key acts outside user:<ownerA>').toBe(403);
    }
    expectEnvelope(minted, 403, 'owner_scope_denied');
  });

  it('a user:<owner> agent cannot revoke the key of an org:* agent', async () => {
    const [victim] = await directAgents(admin, 1, ['read_availability']);
    const second = await api('POST', `/v1/agents/${victim.agentId}/keys`, { key: admin.key, ip: ip(), body: {} });
    const revoked = await api('DELETE', `/v1/agents/${victim.agentId}/keys/${second.body.key_id}`, { key: scopedManager, ip: ip() });
    expectEnvelope(revoked, 403, 'owner_scope_denied');
  });

  it('an org:* agent with only manage_agents cannot mint a key for an agent with every permission', async () => {
    const [manager] = await directAgents(admin, 1, ['manage_agents']);
    const [powerful] = await directAgents(admin, 1, ALL_PERMISSIONS);
    const minted = await api('POST', `/v1/agents/${powerful.agentId}/keys`, { key: manager.key, ip: ip(), body: {} });
    expect(minted.status, minted.text).toBe(403);
    expect(minted.body.error.code).toMatch(/^permission_denied:/);
  });

  it('(control) the same agents are refused the same grant through POST /v1/agents', async () => {
    expectEnvelope(await api('POST', '/v1/agents', { key: scopedManager, ip: ip(), body: { name: 'x', owner_scope: 'org:*', permissions: [] } }), 403, 'owner_scope_denied');
    const [manager] = await directAgents(admin, 1, ['manage_agents']);
    expectEnvelope(await api('POST', '/v1/agents', { key: manager.key, ip: ip(), body: { name: 'x', owner_scope: 'org:*', permissions: ['preempt'] } }), 403, 'permission_denied:preempt');
  });
});
