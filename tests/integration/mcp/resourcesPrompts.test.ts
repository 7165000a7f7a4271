import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import { POST } from '@/app/mcp/route';
import { api, newAgent, newCustomer, type TestCustomer } from '../../helpers/app';
import { FILE_IP, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { callTool, EXPECTED_TOOLS } from './scenario';

/** The SDK's own client over Streamable HTTP, its fetch calling app/mcp/route.ts in-process (as http.test.ts). */
const clients: Client[] = [];
async function connect(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL('http://scheduler.test/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${key}`, 'x-forwarded-for': FILE_IP } },
    fetch: (input, init) => POST(new Request(input, init)),
  });
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

const rulesUri = (email: string) => `scheduler://owners/${encodeURIComponent(email)}/schedule-rules`;
async function readJson(client: Client, uri: string) {
  const { contents } = await client.readResource({ uri });
  expect(contents).toHaveLength(1);
  expect(contents[0]).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse((contents[0] as TextResourceContents).text);
}
async function refusalOf(p: Promise<unknown>): Promise<McpError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(McpError);
  return err as McpError;
}

let admin: TestCustomer;
let owner: string;
let other: string;
beforeAll(async () => {
  admin = await newCustomer();
  owner = await setupOwner(admin, { timeZone: 'Europe/Berlin' });
  other = await setupOwner(admin, { timeZone: 'America/New_York' });
});

describe('MCP resources (docs/agents.md "Resources and prompts")', () => {
  it("lists this agent's bookings and the rules of each owner in its scope, with the templates", async () => {
    const scoped = await newAgent(admin, ['read_availability', 'create_bookings'], `user:${owner}`);
    const client = await connect(scoped.key);
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['scheduler://bookings/mine', rulesUri(owner)]);
    for (const r of resources) expect(r).toMatchObject({ name: expect.any(String), mimeType: 'application/json', description: expect.any(String) });
    expect(resources[1].description).toContain('Europe/Berlin');
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['scheduler://bookings/mine{?from,to,status,limit,cursor}', 'scheduler://owners/{owner_email}/schedule-rules']);
    // an org-wide agent lists every owner's rules
    const all = await (await connect(admin.key)).listResources();
    expect(all.resources.map((r) => r.uri)).toEqual(expect.arrayContaining([rulesUri(owner), rulesUri(other)]));
    // the tools are unchanged beside them
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...EXPECTED_TOOLS].sort());
  });

  it("reads only this agent's own bookings, as list_my_bookings with agent=me", async () => {
    const at = nextWeekday('mon', 'Europe/Berlin').at;
    const mine = await newAgent(admin, ['read_availability', 'create_bookings']);
    const someoneElse = await newAgent(admin, ['read_availability', 'create_bookings']);
    const client = await connect(mine.key);
    const own = await callTool(client, 'create_booking', { owner_email: owner, meeting_class: 'internal', start: at('09:00'), end: at('09:30') });
    expect(own.isError, JSON.stringify(own.data)).toBe(false);
    const theirs = await api('POST', '/v1/bookings', { key: someoneElse.key, ip: FILE_IP, body: { owner_email: owner, meeting_class: 'internal', start: at('10:00'), end: at('10:30') } });
    expect(theirs.status, theirs.text).toBe(201);

    const read = await readJson(client, 'scheduler://bookings/mine');
    expect(read.bookings.map((b: { booking_id: string }) => b.booking_id)).toEqual([own.data.booking_id]);
    expect(read.bookings[0]).toMatchObject({ owner_email: owner, status: 'confirmed', start: at('09:00') });
    expect(read.next_cursor).toBeNull();
    // the same answer the tool gives for agent=me
    expect(read).toEqual((await callTool(client, 'list_my_bookings', { agent: 'me' })).data);
    // filters of the template: a span that ends before the booking keeps none
    expect((await readJson(client, `scheduler://bookings/mine?to=${encodeURIComponent(at('08:00'))}`)).bookings).toEqual([]);
    // another agent is not a filter this resource takes
    const err = await refusalOf(client.readResource({ uri: `scheduler://bookings/mine?agent=${someoneElse.agentId}` }));
    expect(err.message).toContain('not agent');
    // a key without a permission to list bookings is refused as list_my_bookings is
    const holder = await newAgent(admin, ['create_holds']);
    const denied = await refusalOf((await connect(holder.key)).readResource({ uri: 'scheduler://bookings/mine' }));
    expect(denied.message).toContain('permission_denied:read_availability');
    expect(denied.data).toMatchObject({ status: 403, error: { code: 'permission_denied:read_availability' } });
  });

  it("reads an owner's rules in scope, refuses one out of scope (owner_scope_denied, as get_schedule_rules) and an unknown URI", async () => {
    const scoped = await newAgent(admin, ['read_availability'], `user:${owner}`);
    const client = await connect(scoped.key);
    const rules = await readJson(client, rulesUri(owner));
    expect(rules).toMatchObject({ owner_email: owner, time_zone: 'Europe/Berlin' });
    expect(rules).toEqual((await callTool(client, 'get_schedule_rules', { owner_email: owner })).data);

    const denied = await refusalOf(client.readResource({ uri: rulesUri(other) }));
    expect(denied.message).toContain('owner_scope_denied');
    expect(denied.data).toMatchObject({ status: 403, error: { code: 'owner_scope_denied' } });
    // audited as a refused access, as the tool's refusal is
    const audit = await api('GET', '/v1/audit-log?limit=200', { key: admin.key, ip: FILE_IP });
    expect(audit.status, audit.text).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('owner_scope_denied');
    // an org-wide agent reads it
    expect(await readJson(await connect(admin.key), rulesUri(other))).toMatchObject({ owner_email: other, time_zone: 'America/New_York' });
    // an owner that does not exist: the REST 404 is the spec's "not found"
    const unknown = await refusalOf((await connect(admin.key)).readResource({ uri: rulesUri('nobody@example.com') }));
    expect(unknown).toMatchObject({ code: -32002, data: { status: 404, error: { code: 'OWNER_NOT_FOUND' } } });
    const nothing = await refusalOf(client.readResource({ uri: 'scheduler://nothing/here' }));
    expect(nothing.code).toBe(-32002);
  });
});

describe('MCP resources and prompts under the per-IP budget', () => {
  it('charges a resource read once (by its operation) and a prompt message once (by the transport), as tools are', async () => {
    const rpc = (ip: string, body: unknown) =>
      POST(new Request('http://scheduler.test/mcp', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-forwarded-for': ip, authorization: `Bearer ${admin.key}` }, body: JSON.stringify(body) }));
    // Exact counts need one rate-limit window (60 s, aligned to the epoch): retry when a boundary fell inside.
    for (let attempt = 0; ; attempt++) {
      const ip = `198.19.${Math.floor(Math.random() * 250)}.${attempt + 1}`;
      const window = () => Math.floor(Date.now() / 60_000);
      const w0 = window();
      const remaining = async () => Number((await api('GET', '/v1/agents/me', { key: admin.key, ip })).headers.get('ratelimit-remaining'));
      const r0 = await remaining();
      const res = await rpc(ip, [
        { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: rulesUri(owner) } },
        { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'scheduler://bookings/mine' } },
        { jsonrpc: '2.0', id: 3, method: 'prompts/list', params: {} },
        { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'scheduler://nothing/here' } },
      ]);
      expect(res.status).toBe(200);
      const answers = (await res.json()) as { id: number; result?: unknown; error?: { code: number } }[];
      expect(answers.map((a) => [a.id, a.error?.code ?? 'ok'])).toEqual([[1, 'ok'], [2, 'ok'], [3, 'ok'], [4, -32002]]);
      const r1 = await remaining();
      if (window() !== w0 && attempt < 2) continue;
      expect(r0 - r1).toBe(2 + 2 + 1); // two reads by their operations, prompts/list and the unknown URI by the transport, and the REST call
      break;
    }
  });
});

describe('MCP prompts', () => {
  it('lists find_a_time with its arguments', async () => {
    const { prompts } = await (await connect(admin.key)).listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['find_a_time']);
    expect(prompts[0].arguments?.map((a) => [a.name, a.required ?? false])).toEqual([
      ['who', true],
      ['duration', true],
      ['window', false],
      ['meeting_class', false],
      ['title', false],
    ]);
  });

  it('renders search -> hold -> confirm with the arguments filled in, and links each owner\'s rules', async () => {
    const client = await connect(admin.key);
    const window = '2030-01-07T09:00:00Z/2030-01-11T17:00:00Z';
    const got = await client.getPrompt({ name: 'find_a_time', arguments: { who: `${owner}, ${other}`, duration: '45', window, meeting_class: 'internal', title: 'Roadmap' } });
    const [first, ...links] = got.messages;
    expect(first.role).toBe('user');
    const text = first.content.type === 'text' ? first.content.text : '';
    const order = ['search_availability', 'create_hold', 'confirm_hold'].map((tool) => text.indexOf(`call ${tool}`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(text).toContain(`owner_emails ${JSON.stringify([owner, other])}`);
    expect(text).toContain('duration_minutes 45');
    expect(text).toContain('window {"start":"2030-01-07T09:00:00Z","end":"2030-01-11T17:00:00Z"}');
    expect(text).toContain('meeting_class "internal"');
    expect(text).toContain('group_id');
    expect(text).toContain('title "Roadmap"');
    expect(links.map((m) => m.content)).toEqual([
      expect.objectContaining({ type: 'resource_link', uri: rulesUri(owner) }),
      expect.objectContaining({ type: 'resource_link', uri: rulesUri(other) }),
    ]);
    // one owner, a window in words: the model is asked to turn it into date-times and to choose a class
    const single = await client.getPrompt({ name: 'find_a_time', arguments: { who: owner, duration: '30', window: 'next Tuesday afternoon' } });
    const singleText = single.messages[0].content.type === 'text' ? single.messages[0].content.text : '';
    expect(singleText).toContain(`owner_email ${JSON.stringify(owner)}`);
    expect(singleText).toContain('"next Tuesday afternoon"');
    expect(singleText).toMatch(/call list_meeting_classes/i);
    expect(singleText).toContain('hold_id');
  });

  it('refuses arguments the tools would refuse', async () => {
    const client = await connect(admin.key);
    const badEmail = await refusalOf(client.getPrompt({ name: 'find_a_time', arguments: { who: 'not-an-email', duration: '30' } }));
    expect(badEmail.message).toContain('who');
    const badDuration = await refusalOf(client.getPrompt({ name: 'find_a_time', arguments: { who: owner, duration: '2' } }));
    expect(badDuration.message).toContain('duration');
    const noPrompt = await refusalOf(client.getPrompt({ name: 'book_everything', arguments: {} }));
    expect(noPrompt.message).toContain('find_a_time');
  });
});
