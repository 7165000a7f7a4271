import { TRPCError } from '@trpc/server';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { createOwner } from '@/server/domain/ownerService';
import { createCallerFactory } from '@/server/trpc/init';
import { appRouter } from '@/server/trpc/router';
import { api, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

/**
 * The owner settings and admin console procedures (docs/dashboard.md): admin
 * procedures refuse member owners, and each translates to the same domain
 * call (and the same errors) as its REST twin.
 */
let admin: TestCustomer;
let adminEmail: string;
let memberEmail: string;
const ids: Record<string, string> = {};
const NOW = new Date('2026-11-24T10:00:00.000Z'); // a Tuesday

async function callerAs(email: string, role: 'admin' | 'member') {
  const req = new Request('http://scheduler.test/api/trpc');
  return createCallerFactory(appRouter)({ req, headers: req.headers, owner: { ownerId: ids[email], customerId: admin.customerId, email, role }, db: await getDb(), now: () => NOW });
}

beforeAll(async () => {
  admin = await newCustomer();
  const db = await getDb();
  adminEmail = uniqueEmail('console-admin');
  memberEmail = uniqueEmail('console-member');
  ids[adminEmail] = (await createOwner(db, admin.customerId, { email: adminEmail, time_zone: 'UTC', role: 'admin' })).id;
  ids[memberEmail] = (await createOwner(db, admin.customerId, { email: memberEmail, time_zone: 'Europe/Berlin' })).id;
});

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TRPCError);
  return (err as TRPCError).code;
}

describe('admin console procedures', () => {
  it('refuse a member owner (FORBIDDEN) for every admin area', async () => {
    const member = await callerAs(memberEmail, 'member');
    expect(await refusal(member.admin.agents.list())).toBe('FORBIDDEN');
    expect(await refusal(member.admin.agents.create({ name: 'x', owner_scope: 'org:*', permissions: [] }))).toBe('FORBIDDEN');
    expect(await refusal(member.admin.meetingClasses.list())).toBe('FORBIDDEN');
    expect(await refusal(member.admin.owners.list())).toBe('FORBIDDEN');
    expect(await refusal(member.admin.audit.query({ limit: 10 }))).toBe('FORBIDDEN');
    expect(await refusal(member.admin.publicScheduling.links.list())).toBe('FORBIDDEN');
    expect(await refusal(member.admin.publicScheduling.links.checkAlias({ alias: 'abc' }))).toBe('FORBIDDEN');
    // ...while "My schedule" is theirs.
    expect((await member.schedule.get()).owner_email).toBe(memberEmail);
  });

  it('an admin creates an agent, mints a key that works on /v1, revokes it and the key answers api_key_revoked', async () => {
    const caller = await callerAs(adminEmail, 'admin');
    const agent = await caller.admin.agents.create({ name: 'Console agent', owner_scope: 'org:*', permissions: ['read_availability', 'read_audit'] });
    const minted = await caller.admin.agents.mintKey({ agent_id: agent.agent_id, name: 'ci' });
    expect(minted.api_key).toMatch(/^ak_/);
    const ok = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(memberEmail)}`, { key: minted.api_key });
    expect(ok.status).toBe(200);
    const listed = (await caller.admin.agents.list()).agents.find((a) => a.agent_id === agent.agent_id)!;
    expect(listed.keys).toEqual([expect.objectContaining({ key_id: minted.key_id, name: 'ci', revoked_at: null })]);
    expect(JSON.stringify(listed)).not.toContain(minted.api_key);
    await caller.admin.agents.revokeKey({ id: agent.agent_id, key_id: minted.key_id });
    const refused = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(memberEmail)}`, { key: minted.api_key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('api_key_revoked');
  });

  it("sets an agent's display time zone (docs/api.md \"The caller's time zone\"), refuses an unknown one, and clears it", async () => {
    const caller = await callerAs(adminEmail, 'admin');
    const agent = await caller.admin.agents.create({ name: 'Zone agent', owner_scope: 'org:*', permissions: ['read_availability'], display_time_zone: 'america/new_york' });
    expect(agent.display_time_zone).toBe('America/New_York');
    const minted = await caller.admin.agents.mintKey({ agent_id: agent.agent_id, display_time_zone: 'Asia/Tokyo' });
    expect(minted.display_time_zone).toBe('Asia/Tokyo');
    expect((await api('GET', '/v1/agents/me', { key: minted.api_key })).body).toMatchObject({ display_time_zone: 'America/New_York', key_display_time_zone: 'Asia/Tokyo' });
    const bad = await caller.admin.agents.update({ agent_id: agent.agent_id, patch: { display_time_zone: 'Europe/Berln' } }).then(
      () => null,
      (e: TRPCError) => e,
    );
    expect(bad?.message).toContain('Europe/Berlin');
    expect((await caller.admin.agents.update({ agent_id: agent.agent_id, patch: { display_time_zone: null } })).display_time_zone).toBeNull();
    const listed = (await caller.admin.agents.list()).agents.find((a) => a.agent_id === agent.agent_id)!;
    expect(listed.display_time_zone).toBeNull();
    expect(listed.keys[0].display_time_zone).toBe('Asia/Tokyo');
  });

  it("changes a class's on_preempted (as PATCH /v1/meeting-classes/{name}), audited at the context clock; members are refused", async () => {
    const caller = await callerAs(adminEmail, 'admin');
    const name = `console-${crypto.randomUUID().slice(0, 8)}`;
    expect((await caller.admin.meetingClasses.create({ name, priority: 20 })).on_preempted).toBeNull();
    expect(await caller.admin.meetingClasses.update({ name, change: { on_preempted: 'hold_nearest' } })).toMatchObject({ name, priority: 20, on_preempted: 'hold_nearest' });
    expect((await caller.admin.meetingClasses.list()).meeting_classes.find((c) => c.name === name)?.on_preempted).toBe('hold_nearest');
    const audit = await api('GET', '/v1/audit-log?action=meeting_class.update&limit=5', { key: admin.key });
    expect(audit.body.entries[0]).toMatchObject({ at: NOW.toISOString(), meeting_class: name, details: { on_preempted: 'hold_nearest', before: { on_preempted: null } } });
    const missing = await caller.admin.meetingClasses.update({ name: 'no-such-class', change: { on_preempted: null } }).catch((e: unknown) => e);
    expect((missing as TRPCError).cause).toMatchObject({ code: 'MEETING_CLASS_NOT_FOUND' });
    const member = await callerAs(memberEmail, 'member');
    expect(await refusal(member.admin.meetingClasses.update({ name, change: { on_preempted: null } }))).toBe('FORBIDDEN');
  });

  it('checks aliases with the same rules and codes as creating a link', async () => {
    const caller = await callerAs(adminEmail, 'admin');
    expect(await caller.admin.publicScheduling.links.checkAlias({ alias: 'dashboard' })).toMatchObject({ available: false, code: 'invalid_alias' });
    const alias = `con-${Date.now().toString(36)}`;
    expect(await caller.admin.publicScheduling.links.checkAlias({ alias })).toEqual({ alias, available: true });
    const link = await caller.admin.publicScheduling.links.create({ owner_email: memberEmail, alias, title: 'Talk to me' });
    expect(link.url).toBe(`http://scheduler.test/public/schedules/${alias}`);
    expect(await caller.admin.publicScheduling.links.checkAlias({ alias })).toMatchObject({ available: false, code: 'duplicate_alias' });
    const err = await caller.admin.publicScheduling.links.create({ owner_email: memberEmail, alias }).catch((e: TRPCError) => e);
    expect((err as TRPCError).cause).toMatchObject({ code: 'duplicate_alias' });
  });
});

describe('verified domains in the console', () => {
  it('shows the TXT record to publish and refuses a duplicate with the REST code', async () => {
    const caller = await callerAs(adminEmail, 'admin');
    const name = `console-${Date.now().toString(36)}.example`;
    const d = await caller.admin.publicScheduling.domains.create({ domain: name.toUpperCase() });
    expect(d).toMatchObject({ domain: name, status: 'pending', challenge: { record_name: `_scheduler-challenge.${name}`, record_value: expect.stringMatching(/^scheduler-verification=/) } });
    expect((await caller.admin.publicScheduling.domains.list()).domains.map((x) => x.domain)).toContain(name);
    const err = await caller.admin.publicScheduling.domains.create({ domain: name }).catch((e: TRPCError) => e);
    expect((err as TRPCError).cause).toMatchObject({ code: 'duplicate_domain' });
    await caller.admin.publicScheduling.domains.delete({ domain_id: d.domain_id });
    expect((await caller.admin.publicScheduling.domains.list()).domains.map((x) => x.domain)).not.toContain(name);
    const member = await callerAs(memberEmail, 'member');
    expect(await refusal(member.admin.publicScheduling.domains.list())).toBe('FORBIDDEN');
  });
});

describe('requesters in the console', () => {
  it('adds an identity, mints a credential shown once, lists it without the secret, revokes it', async () => {
    const caller = await callerAs(adminEmail, 'admin');
    const email = uniqueEmail('requester');
    const identity = await caller.admin.requesters.identities.create({ email });
    expect(identity).toMatchObject({ email, created: true });
    const minted = await caller.admin.requesters.identities.mintCredential({ identity_id: identity.identity_id });
    expect(minted.requester_credential).toMatch(/^rc_/);
    const listed = await caller.admin.requesters.identities.list();
    expect(listed.credentials.find((c) => c.credential_id === minted.credential_id)).toMatchObject({ identity_id: identity.identity_id, revoked_at: null });
    expect(JSON.stringify(listed)).not.toContain(minted.requester_credential);
    await caller.admin.requesters.identities.revokeCredential({ identity_id: identity.identity_id, credential_id: minted.credential_id });
    const after = await caller.admin.requesters.identities.list();
    expect(after.credentials.find((c) => c.credential_id === minted.credential_id)?.revoked_at).toBe(NOW.toISOString());
    const member = await callerAs(memberEmail, 'member');
    expect(await refusal(member.admin.requesters.identities.list())).toBe('FORBIDDEN');
    expect(await refusal(member.admin.requesters.audiences.list())).toBe('FORBIDDEN');
    expect(await refusal(member.admin.requesters.allocations.list())).toBe('FORBIDDEN');
  });
});

describe('my schedule procedures', () => {
  it('preview reports the same issue as saving (start after end) and shows the coming week', async () => {
    const member = await callerAs(memberEmail, 'member');
    const draft = { working_hours: { mon: [{ start: '17:00', end: '09:00' }], tue: [{ start: '09:00', end: '12:00' }] }, hard_blocks: [] };
    const preview = await member.schedule.preview(draft);
    expect(preview.issues).toEqual([{ path: 'working_hours.mon[0]', message: 'start must be before end' }]);
    expect(preview.days).toHaveLength(7);
    expect(preview.days[0]).toMatchObject({ date: '2026-11-24', weekday: 'tue', working: [{ from: 540, to: 720, label: '09:00-12:00' }] });
    const err = await member.schedule.put(draft).catch((e: TRPCError) => e);
    expect((err as TRPCError).cause).toMatchObject({ code: 'INVALID_SCHEDULE_RULES', details: { fields: [{ path: 'working_hours.mon[0]' }] } });
  });

  it('saves the rules GET /v1/schedule-rules then returns, with readable hard-block summaries', async () => {
    const member = await callerAs(memberEmail, 'member');
    const rules = {
      time_zone: 'Europe/Berlin',
      working_hours: { wed: [{ start: '08:00', end: '12:00' }, { start: '13:00', end: '16:00' }] },
      hard_blocks: [
        { days: ['wed' as const], start: '10:00', end: '11:00', label: 'Standup' },
        { rrule: 'FREQ=MONTHLY;BYDAY=2TU', dtstart: '2026-12-08T14:00', duration_minutes: 60 },
      ],
      max_daily_meeting_hours: 5,
    };
    await member.schedule.put(rules);
    const got = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(memberEmail)}`, { key: admin.key });
    expect(got.body).toMatchObject({ time_zone: 'Europe/Berlin', working_days: ['wed'], hard_blocks: rules.hard_blocks, max_daily_meeting_hours: 5 });
    expect((await member.schedule.get()).hard_block_summaries).toEqual([
      'Every Wednesday, 10:00-11:00',
      'Every 2nd Tuesday of the month, 14:00-15:00 (from 2026-12-08)',
    ]);
  });
});
