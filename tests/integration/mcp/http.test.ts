import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GET, POST } from '@/app/mcp/route';
import { TOOLS_LIST_BUDGET_BYTES } from '@/server/mcp/tools';
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

/** One raw Streamable HTTP POST (no client, no initialize: the endpoint is stateless). */
function rpc(body: string | unknown, opts: { key?: string; ip: string; headers?: Record<string, string> }): Promise<Response> {
  return POST(
    new Request('http://scheduler.test/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': opts.ip, ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}), ...opts.headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}
const toolsList = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });
const toolCall = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
let ipSeq = 0;
/** A client address of this test alone, so its per-IP budget starts empty. */
const freshIp = () => `198.18.${Math.floor(Math.random() * 250)}.${++ipSeq}`;

let admin: TestCustomer;
let owner: string;
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
});

describe('MCP over Streamable HTTP', () => {
  it('answers with an X-Request-Id: the one sent when well-formed, else a new one (docs/api.md)', async () => {
    const sent = await rpc(toolsList(1), { key: admin.key, ip: freshIp(), headers: { 'x-request-id': 'mcp-trace-7' } });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('x-request-id')).toBe('mcp-trace-7');
    const fresh = await rpc(toolsList(2), { key: admin.key, ip: freshIp(), headers: { 'x-request-id': 'not a valid id!' } });
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // A refusal carries one too.
    expect((await rpc(toolsList(3), { ip: freshIp() })).headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lists tools; search -> hold -> confirm; ARBITRATION_REJECTED with alternatives', async () => {
    await searchHoldConfirm(await connect(admin.key), owner, nextWeekday('mon', 'Europe/Berlin').at);
  });

  it('search_availability takes owner_emails, optional_owner_emails and min_optional (nulls for the rest)', async () => {
    const at = nextWeekday('tue', 'Europe/Berlin').at;
    const second = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
    const third = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
    const client = await connect(admin.key);
    const args = { owner_email: null, owner_emails: [owner, second], optional_owner_emails: [third], min_optional: 1, meeting_class: 'internal', duration_minutes: 30, window: { start: at('09:00'), end: at('10:00') }, windows: null, max_results: 2 };
    const r = await callTool(client, 'search_availability', args);
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    const slots = r.data.slots as { start: string; free_optional: string[]; local: Record<string, unknown> }[];
    expect(slots.map((s) => s.start)).toEqual([at('09:00'), at('09:15')]);
    for (const s of slots) {
      expect(s.free_optional).toEqual([third]);
      expect(Object.keys(s.local).sort()).toEqual([owner, second, third].sort());
    }
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
    // a tool result has no headers: the message points at the field that carries the wait
    expect(limited!.error.message).toContain(`retry_after_seconds (${limited!.retry_after_seconds})`);
    expect(limited!.error.message).not.toContain('Retry-After');
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

  it('create_hold with owner_emails holds every owner (group_id, members); confirm_hold on the group_id books them all', async () => {
    const client = await connect(admin.key);
    const at = nextWeekday('tue', 'Europe/Berlin', 2).at;
    const second = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
    const slot = { start: at('11:00'), end: at('11:30') };
    const held = await callTool(client, 'create_hold', { owner_emails: [owner, second], meeting_class: 'internal', hold_scope: 'candidate', candidate: slot });
    expect(held.isError, JSON.stringify(held.data)).toBe(false);
    expect(held.data.members.map((m: Structured) => m.owner_email)).toEqual([owner, second]);
    const booked = await callTool(client, 'confirm_hold', { id: held.data.group_id, ...slot });
    expect(booked.isError, JSON.stringify(booked.data)).toBe(false);
    expect(booked.data.members.map((m: Structured) => m.status)).toEqual(['confirmed', 'confirmed']);
    const direct = await callTool(client, 'create_booking', { owner_emails: [owner, second], meeting_class: 'internal', ...slot });
    expect(direct).toMatchObject({ isError: true, data: { status: 409, error: { code: 'ARBITRATION_REJECTED' }, owners: expect.any(Array) } });
  });

  it('tools/list over HTTP fits its budget (12 KB for 17 tools, 600 bytes per tool since), with plain object schemas and drain_notifications not read-only', async () => {
    const res = await POST(
      new Request('http://scheduler.test/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': FILE_IP, authorization: `Bearer ${admin.key}`, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
    );
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(TOOLS_LIST_BUDGET_BYTES);
    const { tools } = JSON.parse(text).result as { tools: { name: string; description: string; inputSchema: Record<string, unknown>; annotations: Record<string, boolean> }[] };
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      for (const k of ['oneOf', 'anyOf', 'allOf', 'enum', 'not']) expect(t.inputSchema, t.name).not.toHaveProperty(k);
      expect(t.description.length, t.name).toBeLessThanOrEqual(400);
    }
    expect(tools.find((t) => t.name === 'drain_notifications')!.annotations).toMatchObject({ readOnlyHint: false, idempotentHint: false });
  });

  it('drain_notifications consumes: a second call does not answer the same items', async () => {
    const client = await connect(admin.key);
    const at = nextWeekday('tue', 'Europe/Berlin').at;
    const booked = await callTool(client, 'create_booking', { owner_email: owner, meeting_class: 'internal', start: at('15:00'), end: at('15:30') });
    expect(booked.isError, JSON.stringify(booked.data)).toBe(false);
    const other = await newAgent(admin, ['create_bookings'], 'org:*');
    expect((await api('POST', `/v1/bookings/${booked.data.booking_id}/cancel`, { key: other.key, ip: FILE_IP, body: {} })).status).toBe(200);
    const first = await callTool(client, 'drain_notifications', { since: null });
    expect(first.data.notifications.map((n: { kind: string }) => n.kind)).toContain('booking.cancelled');
    const second = await callTool(client, 'drain_notifications', {});
    expect(second.data.notifications).toEqual([]);
  });

  it('INVALID_MEETING_CLASS names the valid classes (tool error and REST alike)', async () => {
    const client = await connect(admin.key);
    const at = nextWeekday('tue', 'Europe/Berlin').at;
    const args = { owner_email: owner, meeting_class: 'meeting', duration_minutes: 30, window: { start: at('09:00'), end: at('12:00') } };
    const bad = await callTool(client, 'search_availability', args);
    expect(bad.data).toMatchObject({ status: 400, error: { code: 'INVALID_MEETING_CLASS' }, valid_meeting_classes: expect.arrayContaining(['internal']) });
    expect(bad.data.error.message).toContain('"internal"');
    const rest = await api('POST', '/v1/availability/search', { key: admin.key, ip: FILE_IP, body: args });
    expect(rest.status).toBe(400);
    expect(rest.body.valid_meeting_classes).toEqual(bad.data.valid_meeting_classes);
  });

  it('list_meeting_classes lists only the owners in the agent scope', async () => {
    const scoped = await newAgent(admin, ['read_availability'], `user:${owner}`);
    const listed = await callTool(await connect(scoped.key), 'list_meeting_classes', {});
    expect(listed.isError, JSON.stringify(listed.data)).toBe(false);
    expect(listed.data.owners).toHaveLength(1);
    expect(listed.data.owners[0]).toMatchObject({ owner_email: owner, time_zone: 'Europe/Berlin' });
    expect(listed.data.owners_truncated).toBe(false);
    const all = await callTool(await connect(admin.key), 'list_meeting_classes', {});
    expect(all.data.owners.map((o: { owner_email: string }) => o.owner_email)).toContain(owner);
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

  it('refuses a body over the REST cap (MAX_BODY_BYTES) with 413, as POST /v1/holds does; a body under it is served', async () => {
    const ip = freshIp();
    // a 1 MiB JSON-RPC message: tools/call with a padded argument
    const huge = JSON.stringify(toolCall(1, 'search_availability', { owner_email: owner, padding: 'x'.repeat(1024 * 1024) }));
    const res = await rpc(huge, { key: admin.key, ip });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('payload_too_large') }, id: null });
    const rest = await api('POST', '/v1/holds', { key: admin.key, ip, rawBody: huge, headers: { 'content-type': 'application/json' } });
    expect(rest.status).toBe(413);
    expect(rest.body.error.code).toBe('payload_too_large');
    // the same without Content-Length (a streamed body) is cut off at the cap too
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        const bytes = new TextEncoder().encode(huge);
        for (let i = 0; i < bytes.length; i += 64 * 1024) c.enqueue(bytes.subarray(i, i + 64 * 1024));
        c.close();
      },
    });
    const streamed = await POST(
      new Request('http://scheduler.test/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': ip, authorization: `Bearer ${admin.key}` },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    // 100 KiB of padding is under the 256 KiB default: the call runs (and REST refuses the unknown field, as it would)
    const fits = await rpc(toolCall(2, 'who_am_i', { padding: 'x'.repeat(100 * 1024) }), { key: admin.key, ip });
    expect(fits.status).toBe(200);
    expect(await fits.json()).toMatchObject({ jsonrpc: '2.0', id: 2, result: expect.anything() });
  });

  it('charges authenticated requests to the per-IP budget as /v1 does: once per request, a tool call once (by its operation)', async () => {
    // Exact counts need one rate-limit window (60 s, aligned to the epoch): retry when a boundary fell inside.
    for (let attempt = 0; ; attempt++) {
      const ip = freshIp();
      const window = () => Math.floor(Date.now() / 60_000);
      const w0 = window();
      const remaining = async () => Number((await api('GET', '/v1/agents/me', { key: admin.key, ip })).headers.get('ratelimit-remaining'));
      const r0 = await remaining(); // GET /v1/agents/me is charged per IP
      for (let i = 0; i < 3; i++) expect((await rpc(toolsList(i), { key: admin.key, ip })).status).toBe(200);
      const r1 = await remaining();
      for (let i = 0; i < 4; i++) {
        const res = await rpc(toolCall(i, 'who_am_i'), { key: admin.key, ip }); // runs GET /v1/agents/me: charged per IP by the wrapper
        expect(res.status).toBe(200);
        expect((await res.json()).result.isError).toBe(false);
      }
      const r2 = await remaining();
      expect((await rpc([toolsList(1), { jsonrpc: '2.0', id: 2, method: 'ping' }, toolCall(3, 'no_such_tool')], { key: admin.key, ip })).status).toBe(200);
      const r3 = await remaining();
      if (window() !== w0 && attempt < 2) continue;
      expect(r0 - r1).toBe(3 + 1); // three tools/list and the REST call
      expect(r1 - r2).toBe(4 + 1); // four tool calls, each charged once, and the REST call
      expect(r2 - r3).toBe(3 + 1); // a batch: each message no operation runs
      break;
    }
  });

  it('a burst of authenticated tools/list beyond the per-IP limit gets 429 with Retry-After, and /v1 from that address too', async () => {
    const ip = freshIp();
    let ok = 0;
    let limited: Response | null = null;
    // 600 per minute per IP; 1,250 tries survive a window boundary
    for (let i = 0; i < 1250 && !limited; i++) {
      const res = await rpc(toolsList(i), { key: admin.key, ip });
      if (res.status === 429) limited = res;
      else {
        expect(res.status).toBe(200);
        ok++;
      }
    }
    expect(limited, 'no 429 in 1,250 tools/list').not.toBeNull();
    expect(ok).toBeGreaterThanOrEqual(600);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.headers.get('ratelimit-remaining')).toBe('0');
    expect(await limited!.json()).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: expect.stringMatching(/^rate_limited/) }, id: null });
    expect((await api('GET', '/v1/agents/me', { key: admin.key, ip })).status).toBe(429);
  });
});

