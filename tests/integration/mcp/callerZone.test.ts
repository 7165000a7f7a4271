import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { POST } from '@/app/mcp/route';
import { api, newCustomer, type TestCustomer } from '../../helpers/app';
import { everyDay, FILE_IP, setupOwner } from '../scheduling/fixtures';
import { callTool } from './scenario';

/**
 * The caller's time zone over MCP (docs/agents.md, docs/api.md "The caller's time zone"): every
 * tool that answers times takes a `time_zone` argument, and the key's or agent's
 * display_time_zone is its default. Berlin owner, New York caller, the US spring-forward of
 * 2027-03-14 (07:00Z); the oracle is fixed literal strings.
 */
const clients: Client[] = [];
async function connect(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('http://scheduler.test/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': FILE_IP } },
    fetch: (input, init) => POST(new Request(input, init)),
  });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

let admin: TestCustomer;
let owner: string;
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin', workingHours: everyDay('00:00', '24:00') });
});

const search = { meeting_class: 'internal', duration_minutes: 60, slot_step_minutes: 60, window: { start: '2027-03-14T05:00:00Z', end: '2027-03-14T08:00:00Z' } };

describe('MCP: time_zone', () => {
  it('tools that answer times list time_zone; search_availability and create_booking answer in it across the DST change', async () => {
    const client = await connect(admin.key);
    const { tools } = await client.listTools();
    const withZone = tools.filter((t) => 'time_zone' in (t.inputSchema.properties ?? {})).map((t) => t.name);
    expect(withZone).toEqual(expect.arrayContaining(['search_availability', 'create_hold', 'confirm_hold', 'create_booking', 'get_booking', 'list_my_bookings', 'drain_notifications']));
    expect(withZone).not.toContain('who_am_i');

    const found = await callTool(client, 'search_availability', { owner_email: owner, ...search, time_zone: 'America/New_York' });
    expect(found.isError, JSON.stringify(found.data)).toBe(false);
    expect((found.data.slots as Record<string, string>[]).map((s) => [s.start_local, s.start_caller, s.end_caller])).toEqual([
      ['2027-03-14T06:00:00+01:00', '2027-03-14T00:00:00-05:00', '2027-03-14T01:00:00-05:00'],
      ['2027-03-14T07:00:00+01:00', '2027-03-14T01:00:00-05:00', '2027-03-14T03:00:00-04:00'],
      ['2027-03-14T08:00:00+01:00', '2027-03-14T03:00:00-04:00', '2027-03-14T04:00:00-04:00'],
    ]);
    const booked = await callTool(client, 'create_booking', { owner_email: owner, meeting_class: 'internal', start: '2027-03-14T06:30:00Z', end: '2027-03-14T07:30:00Z', time_zone: 'America/New_York' });
    expect(booked.isError, JSON.stringify(booked.data)).toBe(false);
    expect(booked.data).toMatchObject({ start_local: '2027-03-14T07:30:00+01:00', start_caller: '2027-03-14T01:30:00-05:00', end_caller: '2027-03-14T03:30:00-04:00' });
  });

  it("the agent's display_time_zone is the default; the argument overrides it; an unknown zone is a tool error with close matches", async () => {
    const agent = await api('POST', '/v1/agents', { key: admin.key, ip: FILE_IP, body: { name: 'ny agent', owner_scope: 'org:*', permissions: ['read_availability', 'create_bookings'], display_time_zone: 'America/New_York' } });
    expect(agent.status, agent.text).toBe(201);
    const minted = await api('POST', `/v1/agents/${agent.body.agent_id}/keys`, { key: admin.key, ip: FILE_IP, body: {} });
    const client = await connect(minted.body.api_key);
    const byDefault = await callTool(client, 'search_availability', { owner_email: owner, ...search, window: { start: '2027-03-14T08:00:00Z', end: '2027-03-14T09:00:00Z' } });
    expect(byDefault.isError, JSON.stringify(byDefault.data)).toBe(false);
    expect((byDefault.data.slots as Record<string, string>[])[0]).toMatchObject({ start_caller: '2027-03-14T04:00:00-04:00', end_caller: '2027-03-14T05:00:00-04:00' });
    const overridden = await callTool(client, 'search_availability', { owner_email: owner, ...search, window: { start: '2027-03-14T08:00:00Z', end: '2027-03-14T09:00:00Z' }, time_zone: 'Asia/Tokyo' });
    expect((overridden.data.slots as Record<string, string>[])[0]).toMatchObject({ start_caller: '2027-03-14T17:00:00+09:00' });
    const refused = await callTool(client, 'search_availability', { owner_email: owner, ...search, time_zone: 'America/New_Yrok' });
    expect(refused.isError).toBe(true);
    expect(refused.data).toMatchObject({ status: 400, error: { code: 'INVALID_TIME_ZONE' } });
    expect(refused.data.did_you_mean).toContain('America/New_York');
  });
});
