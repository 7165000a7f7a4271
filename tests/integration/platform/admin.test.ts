import { beforeAll, describe, expect, it } from 'vitest';
import { getDb, getDbHandle } from '@/server/db';
import { apiKeys } from '@/db/schema';
import { hashSecret } from '@/server/domain/ids';
import { api, expectEnvelope, newAgent, newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';

let admin: TestCustomer;
let foreign: TestCustomer;
beforeAll(async () => {
  admin = await newCustomer();
  foreign = await newCustomer();
});

describe('owners and schedule rules', () => {
  it('creates an owner (201), refuses a duplicate (409) and an unknown time zone (400)', async () => {
    const email = uniqueEmail();
    const res = await api('POST', '/v1/owners', { key: admin.key, body: { email: email.toUpperCase(), name: 'Ada', time_zone: 'Europe/Berlin' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ owner_email: email, name: 'Ada', time_zone: 'Europe/Berlin' });
    expectEnvelope(await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'UTC' } }), 409, 'OWNER_ALREADY_EXISTS');
    expectEnvelope(await api('POST', '/v1/owners', { key: admin.key, body: { email: uniqueEmail(), time_zone: 'Not/AZone' } }), 400, 'INVALID_TIME_ZONE');
    // the same email is free in another customer
    expect((await api('POST', '/v1/owners', { key: foreign.key, body: { email, time_zone: 'UTC' } })).status).toBe(201);
  });

  it('starts with no working hours (warning) and round-trips PUT rules', async () => {
    const email = uniqueEmail();
    await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'America/New_York' } });
    const fresh = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(email)}`, { key: admin.key });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ working_hours: null, warnings: ['WORKING_HOURS_NOT_CONFIGURED'], max_daily_meeting_hours: null, hard_blocks: [] });

    const put = await api('PUT', '/v1/schedule-rules', {
      key: admin.key,
      body: {
        owner_email: email,
        working_hours: { mon: [{ start: '09:00', end: '12:00' }, { start: '13:00', end: '17:00' }], fri: [{ start: '10:00', end: '16:00' }] },
        hard_blocks: [
          { days: ['mon'], start: '12:00', end: '13:00', label: 'lunch' },
          { rrule: 'FREQ=WEEKLY;BYDAY=FR;INTERVAL=2', dtstart: '2026-01-02T15:00', duration_minutes: 60, label: 'review' },
        ],
        max_daily_meeting_hours: 5.5,
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.working_days).toEqual(['mon', 'fri']);
    expect(put.body.working_hours.tue).toEqual([]);
    expect(put.body.warnings).toBeUndefined();
    const read = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(email)}`, { key: admin.key });
    expect(read.body).toEqual(put.body);
    expect(read.body.max_daily_meeting_hours).toBe(5.5);

    const none = await api('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: email, working_hours: {} } });
    expect(none.body.working_days).toEqual([]);
  });

  it('takes the schedule rules in the creating call, and creates nobody when they are invalid', async () => {
    const email = uniqueEmail();
    const rules = {
      working_hours: { mon: [{ start: '09:00', end: '17:00' }], tue: [{ start: '09:00', end: '17:00' }] },
      hard_blocks: [{ days: ['mon'], start: '12:00', end: '13:00', label: 'lunch' }],
      max_daily_meeting_hours: 5,
    };
    const bad = await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'Europe/Berlin', working_hours: { mon: [{ start: '17:00', end: '09:00' }] } } });
    expectEnvelope(bad, 400, 'INVALID_SCHEDULE_RULES');
    expectEnvelope(await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(email)}`, { key: admin.key }), 404, 'OWNER_NOT_FOUND');

    const res = await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'Europe/Berlin', ...rules } });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({ owner_email: email, name: null, time_zone: 'Europe/Berlin' });
    const read = await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(email)}`, { key: admin.key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ owner_email: email, time_zone: 'Europe/Berlin', working_days: ['mon', 'tue'], ...rules, working_hours: { ...rules.working_hours, wed: [], thu: [], fri: [], sat: [], sun: [] }, buffer_external_events: false, date_overrides: [], out_of_office: [] });
  });

  it('rejects malformed rules', async () => {
    const email = uniqueEmail();
    await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'UTC' } });
    const put = (body: object) => api('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: email, ...body } });
    expectEnvelope(await put({ working_hours: { mon: [{ start: '17:00', end: '09:00' }] } }), 400, 'INVALID_SCHEDULE_RULES');
    expectEnvelope(await put({ working_hours: { mon: [{ start: '09:00', end: '12:00' }, { start: '11:00', end: '13:00' }] } }), 400, 'INVALID_SCHEDULE_RULES');
    expectEnvelope(await put({ working_hours: { mon: [{ start: '9am', end: '12:00' }] } }), 400, 'invalid_request');
    expectEnvelope(await put({ working_hours: { someday: [] } }), 400, 'invalid_request');
    expectEnvelope(await put({ working_hours: null, hard_blocks: [{ rrule: 'FREQ=YEARLY', dtstart: '2026-01-01T10:00', duration_minutes: 30 }] }), 400, 'INVALID_SCHEDULE_RULES');
    expectEnvelope(await put({ working_hours: null, max_daily_meeting_hours: 30 }), 400, 'invalid_request');
  });

  it('PUT takes owner_email in the query as GET does, or in the body; both only when they agree; errors say where it was looked for', async () => {
    const email = uniqueEmail();
    await api('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'UTC' } });
    const q = `?owner_email=${encodeURIComponent(email)}`;
    const hours = { mon: [{ start: '08:00', end: '12:00' }] };
    const inQuery = await api('PUT', `/v1/schedule-rules${q}`, { key: admin.key, body: { working_hours: hours } });
    expect(inQuery.status, inQuery.text).toBe(200);
    expect(inQuery.body).toMatchObject({ owner_email: email, working_days: ['mon'] });
    expect((await api('PUT', `/v1/schedule-rules?owner_email=${encodeURIComponent(email.toUpperCase())}`, { key: admin.key, body: { owner_email: email, working_hours: hours } })).status).toBe(200);
    // Two different owners: refused, naming both places.
    const other = uniqueEmail();
    const both = expectEnvelope(await api('PUT', `/v1/schedule-rules${q}`, { key: admin.key, body: { owner_email: other, working_hours: hours } }), 400, 'invalid_request');
    expect(both.details.fields.map((f: { path: string }) => f.path)).toEqual(['query.owner_email', 'body.owner_email']);
    expect(both.message).toContain('different owners');
    // Neither: required, and where it was looked for.
    const none = expectEnvelope(await api('PUT', '/v1/schedule-rules', { key: admin.key, body: { working_hours: hours } }), 400, 'invalid_request');
    expect(none.details.fields.map((f: { path: string }) => f.path)).toEqual(['query.owner_email', 'body.owner_email']);
    expect(none.message).toBe('Invalid query.owner_email or body.owner_email: Required for an agent whose owner_scope is org:*');
    const get = expectEnvelope(await api('GET', '/v1/schedule-rules', { key: admin.key }), 400, 'invalid_request');
    expect(get.details.fields.map((f: { path: string }) => f.path)).toEqual(['query.owner_email']);
    // A PUT without working_hours: it is required (not "received undefined").
    const missing = expectEnvelope(await api('PUT', `/v1/schedule-rules${q}`, { key: admin.key, body: {} }), 400, 'invalid_request');
    expect(missing.details.fields).toEqual([{ path: 'body.working_hours', message: 'Required (expected object)', code: 'invalid_type' }]);
    expect(missing.message).toBe('Invalid body.working_hours: Required (expected object)');
    expect(missing.message).not.toContain('undefined');
    // A value of the wrong type still says what it got.
    const wrong = expectEnvelope(await api('PUT', `/v1/schedule-rules${q}`, { key: admin.key, body: { working_hours: 5 } }), 400, 'invalid_request');
    expect(wrong.details.fields[0].message).toContain('received number');
  });

  it('answers OWNER_NOT_FOUND for an unknown owner and for another customer\'s owner', async () => {
    const email = uniqueEmail();
    await api('POST', '/v1/owners', { key: foreign.key, body: { email, time_zone: 'UTC' } });
    expectEnvelope(await api('GET', `/v1/schedule-rules?owner_email=${encodeURIComponent(email)}`, { key: admin.key }), 404, 'OWNER_NOT_FOUND');
    expectEnvelope(await api('PUT', '/v1/schedule-rules', { key: admin.key, body: { owner_email: email, working_hours: null } }), 404, 'OWNER_NOT_FOUND');
  });
});

describe('meeting classes', () => {
  it('creates with defaults, lists only the customer\'s own, refuses duplicates', async () => {
    const res = await api('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'board', priority: 90 } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'board', priority: 90, preempt_policy: 'preempt_lower', sacred_meeting_age_hours: 24, buffer_before_minutes: 0, buffer_after_minutes: 0, reminder_offsets_minutes: [], on_preempted: null });
    const buffered = await api('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'buffered', priority: 50, buffer_before_minutes: 10, buffer_after_minutes: 240 } });
    expect(buffered.body).toMatchObject({ name: 'buffered', buffer_before_minutes: 10, buffer_after_minutes: 240 });
    expectEnvelope(await api('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'too-long', priority: 50, buffer_after_minutes: 241 } }), 400, 'invalid_request');
    expectEnvelope(await api('POST', '/v1/meeting-classes', { key: admin.key, body: { name: 'board', priority: 1 } }), 409, 'MEETING_CLASS_ALREADY_EXISTS');
    await api('POST', '/v1/meeting-classes', { key: foreign.key, body: { name: 'foreign-only', priority: 5, preempt_policy: 'never', sacred_meeting_age_hours: 0 } });
    const list = await api('GET', '/v1/meeting-classes', { key: admin.key });
    expect(list.body.meeting_classes.map((c: { name: string }) => c.name)).toContain('board');
    expect(list.body.meeting_classes.map((c: { name: string }) => c.name)).not.toContain('foreign-only');
  });
});

describe('agents and keys', () => {
  it('creates, renames, re-scopes and re-permissions an agent', async () => {
    const res = await api('POST', '/v1/agents', { key: admin.key, body: { name: 'assistant', owner_scope: 'org:*', permissions: ['read_availability', 'create_holds'] } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'assistant', owner_scope: 'org:*', permissions: ['read_availability', 'create_holds'], disabled: false });
    const patched = await api('PATCH', `/v1/agents/${res.body.agent_id}`, {
      key: admin.key,
      body: { name: 'renamed', owner_scope: 'user:Ada@Example.com', permissions: ['create_bookings'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'renamed', owner_scope: 'user:ada@example.com', permissions: ['create_bookings'] });
    expectEnvelope(await api('PATCH', `/v1/agents/${res.body.agent_id}`, { key: admin.key, body: { owner_scope: 'team:x' } }), 400, 'invalid_request');
  });

  it('shows a key once, stores only its hash, and answers 404 for foreign or unknown ids', async () => {
    const agent = await newAgent(admin, ['read_availability']);
    const minted = await api('POST', `/v1/agents/${agent.agentId}/keys`, { key: admin.key, body: { name: 'ci' } });
    expect(minted.status).toBe(201);
    expect(minted.body.api_key).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
    expect(minted.body.api_key.startsWith(minted.body.prefix)).toBe(true);
    const rows = await (await getDb()).select().from(apiKeys);
    expect(rows.some((r) => r.keyHash === hashSecret(minted.body.api_key))).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(minted.body.api_key);

    const foreignAgent = await newAgent(foreign, ['read_availability']);
    expectEnvelope(await api('POST', `/v1/agents/${foreignAgent.agentId}/keys`, { key: admin.key, body: {} }), 404, 'AGENT_NOT_FOUND');
    expectEnvelope(await api('PATCH', `/v1/agents/${foreignAgent.agentId}`, { key: admin.key, body: { disabled: true } }), 404, 'AGENT_NOT_FOUND');
    expectEnvelope(await api('DELETE', `/v1/agents/${agent.agentId}/keys/${minted.body.key_id}x`, { key: admin.key }), 404, 'API_KEY_NOT_FOUND');
    expectEnvelope(await api('DELETE', `/v1/agents/not-a-uuid/keys/${minted.body.key_id}`, { key: admin.key }), 404, 'AGENT_NOT_FOUND');
    const foreignKey = await api('POST', `/v1/agents/${foreignAgent.agentId}/keys`, { key: foreign.key, body: {} });
    expectEnvelope(await api('DELETE', `/v1/agents/${foreignAgent.agentId}/keys/${foreignKey.body.key_id}`, { key: admin.key }), 404, 'AGENT_NOT_FOUND');
    expectEnvelope(await api('DELETE', `/v1/agents/${agent.agentId}/keys/${foreignKey.body.key_id}`, { key: admin.key }), 404, 'API_KEY_NOT_FOUND');
  });

  it('keeps no plaintext secret in any table', async () => {
    const agent = await newAgent(admin, ['read_availability']);
    const handle = await getDbHandle();
    const db = handle.db;
    const tables = (await db.execute<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    )) as unknown as { rows?: { table_name: string }[] } & { table_name: string }[];
    const names = (tables.rows ?? tables).map((t) => t.table_name);
    expect(names).toContain('api_keys');
    for (const name of names) {
      const rows = (await db.execute(`select row_to_json(t)::text as j from "${name}" t` as never)) as unknown as { rows?: { j: string }[] } & { j: string }[];
      const text = (rows.rows ?? rows).map((r) => r.j).join('\n');
      expect(text.includes(agent.key), `plaintext API key found in table ${name}`).toBe(false);
      expect(text.includes(admin.key), `plaintext API key found in table ${name}`).toBe(false);
    }
  });
});
