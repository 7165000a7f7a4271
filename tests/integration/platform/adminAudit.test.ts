import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { getDb } from '@/server/db';
import { pgErrorInfo } from '@/db/errors';
import { auditLog, meetingClasses } from '@/db/schema';
import { audited, type OwnerActor } from '@/server/domain/adminAudit';
import { newId } from '@/server/domain/ids';
import { createMeetingClass } from '@/server/domain/meetingClassService';
import { putScheduleRules } from '@/server/domain/ownerService';
import { startDnsServer, type DnsServer } from '../../helpers/dnsServer';
import { api, newAgent, newCustomer, uniqueEmail, type ApiOptions, type TestCustomer } from '../../helpers/app';

/**
 * Administrative changes write one audit row (outcome accept) in their own
 * transaction, read through GET /v1/audit-log with the `action` filter, with
 * the actor: the agent behind the key (agent_id) or the owner who acted
 * through the dashboard (actor_owner_email).
 */
type Entry = {
  id: string;
  action: string;
  outcome: string;
  agent_id: string | null;
  owner_email: string | null;
  actor_owner_email: string | null;
  meeting_class: string | null;
  details: Record<string, unknown> | null;
};

const P = '/v1/public-scheduling';
const IP = `10.77.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 1}`;
const call = (method: string, path: string, opts: ApiOptions = {}) => api(method, path, { ip: IP, key: admin.key, ...opts });

let admin: TestCustomer;
let ownerEmail: string;
let dns: DnsServer;
const savedResolver = process.env.DNS_RESOLVER;

beforeAll(async () => {
  admin = await newCustomer();
  dns = await startDnsServer();
  process.env.DNS_RESOLVER = dns.address;
});
afterAll(async () => {
  if (savedResolver === undefined) delete process.env.DNS_RESOLVER;
  else process.env.DNS_RESOLVER = savedResolver;
  await dns?.close();
});

async function ok(method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) {
  const res = await call(method, path, { body });
  expect(res.status, res.text).toBe(status);
  return res.body;
}

/** The entries of one action, newest first. */
async function entries(action: string, key = admin.key): Promise<Entry[]> {
  const res = await call('GET', `/v1/audit-log?action=${encodeURIComponent(action)}&limit=200`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body.entries;
}

/** The one entry of `action` written by the admin agent (bootstrap wrote the first agent and key with no actor), checked for outcome. */
async function only(action: string): Promise<Entry> {
  const found = (await entries(action)).filter((e) => e.agent_id !== null || e.actor_owner_email !== null);
  expect(found, action).toHaveLength(1);
  expect(found[0]).toMatchObject({ action, outcome: 'accept', agent_id: admin.agentId, actor_owner_email: null });
  return found[0];
}

describe('owners, schedule rules and meeting classes', () => {
  it('audits owner creation, rule changes and class registration with the acting agent', async () => {
    ownerEmail = uniqueEmail('audited');
    await ok('POST', '/v1/owners', { email: ownerEmail, time_zone: 'Europe/Berlin' });
    expect((await only('owner.create')).owner_email).toBe(ownerEmail);

    await ok('PUT', '/v1/schedule-rules', { owner_email: ownerEmail, working_hours: { mon: [{ start: '09:00', end: '17:00' }] }, max_daily_meeting_hours: 6 });
    const rules = await only('schedule_rules.replace');
    expect(rules.owner_email).toBe(ownerEmail);
    expect(rules.details).toMatchObject({ time_zone: 'Europe/Berlin', max_daily_meeting_hours: 6, working_hours: { mon: [{ start: '09:00', end: '17:00' }], tue: [] } });

    await ok('POST', '/v1/meeting-classes', { name: 'standard', priority: 50 });
    const mc = await only('meeting_class.create');
    expect(mc.meeting_class).toBe('standard');
    expect(mc.details).toMatchObject({ name: 'standard', priority: 50, preempt_policy: 'preempt_lower' });
  });

  it('writes nothing for a refused change (the row commits only with its effect)', async () => {
    expect((await call('POST', '/v1/meeting-classes', { body: { name: 'standard', priority: 10 } })).status).toBe(409);
    expect((await call('PUT', '/v1/schedule-rules', { body: { owner_email: ownerEmail, time_zone: 'Mars/Olympus', working_hours: null } })).status).toBeGreaterThanOrEqual(400);
    expect(await entries('meeting_class.create')).toHaveLength(1);
    expect(await entries('schedule_rules.replace')).toHaveLength(1);
  });
});

describe('agents and keys', () => {
  it('audits agent creation and change, key mint and revoke; never the key itself', async () => {
    const agent = await ok('POST', '/v1/agents', { name: 'helper', owner_scope: 'org:*', permissions: ['read_availability'] });
    expect((await only('agent.create')).details).toMatchObject({ agent_id: agent.agent_id, name: 'helper', owner_scope: 'org:*', permissions: ['read_availability'] });

    await ok('PATCH', `/v1/agents/${agent.agent_id}`, { disabled: true, permissions: ['read_availability', 'read_audit'] });
    const changed = await only('agent.update');
    expect(changed.details).toMatchObject({ agent_id: agent.agent_id, disabled: true, permissions: ['read_availability', 'read_audit'], before: { disabled: false, permissions: ['read_availability'] } });

    const key = await ok('POST', `/v1/agents/${agent.agent_id}/keys`, { name: 'ci' });
    const minted = await only('api_key.mint');
    expect(minted.details).toEqual({ agent_id: agent.agent_id, key_id: key.key_id, prefix: key.prefix, name: 'ci' });
    expect(JSON.stringify(minted)).not.toContain(key.api_key);

    await ok('DELETE', `/v1/agents/${agent.agent_id}/keys/${key.key_id}`);
    await ok('DELETE', `/v1/agents/${agent.agent_id}/keys/${key.key_id}`); // already revoked: nothing changes
    expect((await only('api_key.revoke')).details).toEqual({ agent_id: agent.agent_id, key_id: key.key_id });
  });

  it('records which agent acted', async () => {
    const manager = await newAgent(admin, ['manage_agents', 'read_availability']);
    await api('POST', '/v1/agents', { ip: IP, key: manager.key, body: { name: 'by manager', owner_scope: 'org:*', permissions: ['read_availability'] } });
    const byManager = (await entries('agent.create')).filter((e) => e.details?.name === 'by manager');
    expect(byManager.map((e) => e.agent_id)).toEqual([manager.agentId]);
  });
});

describe('public scheduling administration', () => {
  it('audits links, meeting types and allocations, about the link owner', async () => {
    const link = await ok('POST', `${P}/links`, { owner_email: ownerEmail, alias: `audit-${newId().slice(-12)}` });
    await ok('PATCH', `${P}/links/${link.link_id}`, { title: 'Office hours' });
    await ok('POST', `${P}/links/${link.link_id}/meeting-types`, { slug: 'intro', title: 'Intro', duration_minutes: [30], meeting_class: 'standard' });
    await ok('PATCH', `${P}/links/${link.link_id}/meeting-types/intro`, { published: false });
    const allocation = await ok('POST', `${P}/allocations`, { link_id: link.link_id, slug: 'intro', limit: 5, period: 'week' });
    await ok('DELETE', `${P}/allocations/${allocation.allocation_id}`);
    await ok('DELETE', `${P}/links/${link.link_id}`);

    for (const action of ['public_link.create', 'public_link.update', 'public_link.delete']) {
      const e = await only(action);
      expect(e.owner_email).toBe(ownerEmail);
      expect(e.details).toMatchObject({ link_id: link.link_id, alias: link.alias });
    }
    expect((await only('public_link.update')).details).toMatchObject({ title: 'Office hours' });
    expect(await only('public_meeting_type.create')).toMatchObject({ owner_email: ownerEmail, meeting_class: 'standard', details: { link_id: link.link_id, slug: 'intro', published: true } });
    // An update records the values before it, so the log shows old beside new (server/domain/audit/words.ts).
    expect((await only('public_meeting_type.update')).details).toMatchObject({ slug: 'intro', published: false, before: { slug: 'intro', title: 'Intro', published: true } });
    for (const action of ['allocation.create', 'allocation.delete']) {
      expect(await only(action)).toMatchObject({ owner_email: ownerEmail, details: { allocation_id: allocation.allocation_id, slug: 'intro', limit: 5, period: 'week' } });
    }
  });

  it('audits domains, requester identities and credentials, and audiences; never the credential itself', async () => {
    const domain = await ok('POST', `${P}/domains`, { domain: `audit-${newId().slice(-12)}.example.com` });
    dns.setTxt(domain.challenge.record_name, domain.challenge.record_value);
    await ok('POST', `${P}/domains/${domain.domain_id}/verify`, undefined, 200);
    await ok('POST', `${P}/domains/${domain.domain_id}/verify`, undefined, 200); // already verified: nothing changes
    expect((await only('domain.create')).details).toEqual({ domain_id: domain.domain_id, domain: domain.domain, status: 'pending' });
    expect((await only('domain.verify')).details).toEqual({ domain_id: domain.domain_id, domain: domain.domain, status: 'verified' });

    const identity = await ok('POST', `${P}/requester-identities`, { email: 'guest@outside.example' });
    await call('POST', `${P}/requester-identities`, { body: { email: 'guest@outside.example' } }); // already registered: nothing changes
    expect((await only('requester_identity.create')).details).toMatchObject({ identity_id: identity.identity_id, email: 'guest@outside.example' });

    const credential = await ok('POST', `${P}/requester-identities/${identity.identity_id}/credentials`);
    const minted = await only('requester_credential.mint');
    expect(minted.details).toMatchObject({ identity_id: identity.identity_id, credential_id: credential.credential_id });
    expect(JSON.stringify(minted)).not.toContain(credential.requester_credential);
    await ok('DELETE', `${P}/requester-identities/${identity.identity_id}/credentials/${credential.credential_id}`);
    expect((await only('requester_credential.revoke')).details).toEqual({ identity_id: identity.identity_id, credential_id: credential.credential_id });

    const audience = await ok('POST', `${P}/audiences`, { name: 'partners', members: [{ email: 'a@partner.example' }] });
    await ok('PATCH', `${P}/audiences/${audience.audience_id}`, { members: [{ domain: domain.domain }] });
    await ok('DELETE', `${P}/audiences/${audience.audience_id}`);
    expect((await only('audience.create')).details).toEqual({ audience_id: audience.audience_id, name: 'partners', members: [{ email: 'a@partner.example' }] });
    expect((await only('audience.update')).details).toEqual({ audience_id: audience.audience_id, name: 'partners', members: [{ domain: domain.domain }] });
    expect((await only('audience.delete')).details).toMatchObject({ audience_id: audience.audience_id });

    await ok('DELETE', `${P}/domains/${domain.domain_id}`);
    expect((await only('domain.delete')).details).toMatchObject({ domain_id: domain.domain_id });
  });
});

describe('the actor and the transaction', () => {
  it('records an owner acting through the dashboard as the actor, with no agent', async () => {
    const db = await getDb();
    const [owner] = (await entries('owner.create')).filter((e) => e.owner_email === ownerEmail);
    expect(owner).toBeDefined();
    const row = (await db.select().from(auditLog).where(eq(auditLog.id, owner.id)))[0];
    const actor: OwnerActor = { kind: 'owner', ownerId: row.ownerId!, customerId: admin.customerId, email: ownerEmail };
    await createMeetingClass(db, admin.customerId, { name: 'from the dashboard', priority: 30 }, actor);
    await putScheduleRules(db, admin.customerId, ownerEmail, { working_hours: null }, new Date(), actor);
    const [mc] = (await entries('meeting_class.create')).filter((e) => e.meeting_class === 'from the dashboard');
    expect(mc).toMatchObject({ agent_id: null, actor_owner_email: ownerEmail });
    expect((await entries('schedule_rules.replace'))[0]).toMatchObject({ agent_id: null, actor_owner_email: ownerEmail, owner_email: ownerEmail });
  });

  it('rolls the change back when its audit row cannot be written', async () => {
    const db = await getDb();
    const id = newId();
    const failed = await audited(
      db,
      null,
      (tx) => tx.insert(meetingClasses).values({ id, customerId: admin.customerId, name: 'never committed', priority: 1 }),
      // No such customer: the audit row's foreign key refuses it.
      () => ({ action: 'meeting_class.create', customerId: newId(), details: {}, at: new Date() }),
    ).then(() => null, pgErrorInfo);
    expect(failed?.code).toBe('23503');
    expect(await db.select().from(meetingClasses).where(eq(meetingClasses.id, id))).toEqual([]);
  });

  it("nests in a caller's transaction: a failed change rolls back to its savepoint and the caller goes on", async () => {
    const db = await getDb();
    const [kept, dropped] = [newId(), newId()];
    await db.transaction(async (tx) => {
      await tx.insert(meetingClasses).values({ id: kept, customerId: admin.customerId, name: 'kept', priority: 1 });
      const failed = await audited(
        tx,
        null,
        (inner) => inner.insert(meetingClasses).values({ id: dropped, customerId: admin.customerId, name: 'dropped', priority: 1 }),
        () => ({ action: 'meeting_class.create', customerId: newId(), details: {}, at: new Date() }),
      ).then(() => null, pgErrorInfo);
      expect(failed?.code).toBe('23503');
      await audited(tx, null, async () => null, () => ({ action: 'meeting_class.create', customerId: admin.customerId, meetingClass: 'kept', details: {}, at: new Date() }));
    });
    expect((await db.select().from(meetingClasses).where(eq(meetingClasses.id, kept))).map((c) => c.name)).toEqual(['kept']);
    expect(await db.select().from(meetingClasses).where(eq(meetingClasses.id, dropped))).toEqual([]);
    expect((await entries('meeting_class.create')).filter((e) => e.meeting_class === 'kept')).toHaveLength(1);
  });

  it("shows a user-scoped agent only its owner's entries", async () => {
    const reader = await newAgent(admin, ['read_audit'], `user:${ownerEmail}`);
    const seen = (await entries('schedule_rules.replace', reader.key)).map((e) => e.owner_email);
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen)).toEqual(new Set([ownerEmail]));
    expect(await entries('agent.create', reader.key)).toEqual([]);
  });
});
