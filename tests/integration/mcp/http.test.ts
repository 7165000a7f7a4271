import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GET, POST } from '@/app/mcp/route';
import { api, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { FILE_IP, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { callTool, permissionRefused, searchHoldConfirm, type Structured } from './scenario';

/** The SDK's own client over Streamable HTTP, its fetch calling app/mcp/route.ts in-process. */
const clients: Client[] = [];
async function connect(key: string | null): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('http://scheduler.test/mcp'), {
    requestInit: { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), 'x-forwarded-for': FILE_IP } },
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
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
});

describe('MCP over Streamable HTTP', () => {
  it('lists tools; search -> hold -> confirm; ARBITRATION_REJECTED with alternatives', async () => {
    await searchHoldConfirm(await connect(admin.key), owner, nextWeekday('mon', 'Europe/Berlin').at);
  });

  it('a key without create_bookings gets the permission error as a tool error', async () => {
    const reader = await newAgent(admin, ['read_availability']);
    await permissionRefused(await connect(reader.key), owner, nextWeekday('wed', 'Europe/Berlin').at);
  });

  it('keeps owner scope and rate limits as on REST', async () => {
    const at = nextWeekday('fri', 'Europe/Berlin').at;
    const scoped = await newAgent(admin, ['read_availability', 'create_bookings'], `user:${owner}`);
    const client = await connect(scoped.key);
    const other = await setupOwner(admin);
    const denied = await callTool(client, 'get_schedule_rules', { owner_email: other });
    expect(denied).toMatchObject({ isError: true, data: { status: 403, error: { code: 'owner_scope_denied' } } });
    const own = await callTool(client, 'get_schedule_rules', {}); // owner_email may be omitted by a user-scoped agent
    expect(own.isError, JSON.stringify(own.data)).toBe(false);
    expect(own.data.owner_email).toBe(owner);
    // availability search is limited per key (300/min; 620 tries survive a window boundary): the tool's calls and REST calls share one budget
    let limited: Structured | null = null;
    for (let i = 0; i < 620 && !limited; i++) {
      const r = await callTool(client, 'search_availability', { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window: { start: at('09:00'), end: at('10:00') } });
      if (r.isError) limited = r.data;
    }
    expect(limited).toMatchObject({ status: 429, error: { code: 'rate_limited' }, retry_after_seconds: expect.any(Number) });
    const rest = await api('POST', '/v1/availability/search', { key: scoped.key, ip: FILE_IP, body: { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window: { start: at('09:00'), end: at('10:00') } } });
    expect(rest.status).toBe(429);
  });

  it('is audited like REST: the MCP booking is in the audit log', async () => {
    const client = await connect(admin.key);
    const at = nextWeekday('thu', 'Europe/Berlin').at;
    const booked = await callTool(client, 'create_booking', { owner_email: owner, meeting_class: 'internal', start: at('10:00'), end: at('10:30') });
    expect(booked.isError, JSON.stringify(booked.data)).toBe(false);
    const audit = await api('GET', `/v1/audit-log?owner_email=${encodeURIComponent(owner)}&limit=200`, { key: admin.key, ip: FILE_IP });
    expect(audit.status, audit.text).toBe(200);
    expect(JSON.stringify(audit.body)).toContain(booked.data.booking_id);
  });

  it('a validation failure names the failing field as on REST', async () => {
    const bad = await callTool(await connect(admin.key), 'search_availability', { owner_email: owner, meeting_class: 'internal', duration_minutes: 30 });
    expect(bad.isError).toBe(true);
    expect(bad.data).toMatchObject({ status: 400, error: { code: 'invalid_request' } });
    expect(JSON.stringify(bad.data.error.details)).toContain('body.window');
  });

  it('refuses a request without a valid agent key, and a revoked or disabled one', async () => {
    await expect(connect(null)).rejects.toThrow();
    await expect(connect('ak_not_a_key_this_service_issued')).rejects.toThrow();
    const post = (key?: string) =>
      POST(new Request('http://scheduler.test/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': FILE_IP, ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: '{}' }));
    expect((await GET()).status).toBe(405); // stateless: no server-initiated stream
    const none = await post();
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('unknown_api_key');
    const agent = await newAgent(admin, ['read_availability']);
    expect((await api('PATCH', `/v1/agents/${agent.agentId}`, { key: admin.key, body: { disabled: true }, ip: FILE_IP })).status).toBe(200);
    const disabled = await post(agent.key);
    expect(disabled.status).toBe(401);
    expect(disabled.headers.get('www-authenticate')).toContain('agent_disabled');
  });
});
