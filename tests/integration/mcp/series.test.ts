import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { POST } from '@/app/mcp/route';
import { newCustomer, type TestCustomer } from '../../helpers/app';
import { call, FILE_IP, nextWeekday, setupOwner } from '../scheduling/fixtures';
import { callTool } from './scenario';

/**
 * A recurring series over MCP (docs/api.md "Recurring series"): create_booking takes recurrence
 * and min_occurrences, a refusal is a tool error naming each refused occurrence, and
 * cancel_booking takes scope.
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
beforeAll(async () => {
  admin = await newCustomer();
});

describe('MCP: recurring series', () => {
  it('create_booking with recurrence books the series; a taken occurrence refuses it whole; cancel_booking with scope series cancels it', async () => {
    const owner = await setupOwner(admin);
    const client = await connect(admin.key);
    const day = nextWeekday('thu', 'UTC');
    const series = { owner_email: owner, meeting_class: 'internal', start: day.at('13:00'), end: day.at('13:30'), recurrence: 'FREQ=WEEKLY;COUNT=3' };
    const booked = await callTool(client, 'create_booking', series);
    expect(booked.isError, JSON.stringify(booked.data)).toBe(false);
    const info = booked.data.series as { series_id: string; bookings: { booking_id: string }[] };
    expect(info.bookings).toHaveLength(3);

    const again = await callTool(client, 'create_booking', series);
    expect(again.isError).toBe(true);
    expect((again.data.refused_occurrences as { index: number }[]).map((o) => o.index)).toEqual([0, 1, 2]);

    const cancelled = await callTool(client, 'cancel_booking', { id: info.bookings[1].booking_id, scope: 'series' });
    expect(cancelled.isError, JSON.stringify(cancelled.data)).toBe(false);
    for (const b of info.bookings) expect((await call('GET', `/v1/bookings/${b.booking_id}`, { key: admin.key })).body).toMatchObject({ status: 'cancelled', series_id: info.series_id });
  });

  it('create_hold with recurrence holds the series; confirm_hold with scope following books it; reschedule_booking and release_hold take scope', async () => {
    const owner = await setupOwner(admin);
    const client = await connect(admin.key);
    const day = nextWeekday('tue', 'UTC');
    const held = await callTool(client, 'create_hold', { owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: day.at('10:00'), end: day.at('10:30') }, recurrence: 'FREQ=WEEKLY;COUNT=3' });
    expect(held.isError, JSON.stringify(held.data)).toBe(false);
    const holds = (held.data.series as { holds: { hold_id: string; start: string; end: string }[] }).holds;
    expect(holds).toHaveLength(3);
    const released = await callTool(client, 'release_hold', { id: holds[0].hold_id, scope: 'occurrence' });
    expect(released.isError, JSON.stringify(released.data)).toBe(false);
    const confirmed = await callTool(client, 'confirm_hold', { id: holds[1].hold_id, start: holds[1].start, end: holds[1].end, scope: 'following' });
    expect(confirmed.isError, JSON.stringify(confirmed.data)).toBe(false);
    const bookings = (confirmed.data.series as { bookings: { booking_id: string }[] }).bookings;
    expect(bookings).toHaveLength(2);
    const later = nextWeekday('tue', 'UTC', 2);
    const moved = await callTool(client, 'reschedule_booking', { id: bookings[0].booking_id, start: later.at('11:00'), end: later.at('11:30'), scope: 'series' });
    expect(moved.isError, JSON.stringify(moved.data)).toBe(false);
    for (const b of bookings) expect((await call('GET', `/v1/bookings/${b.booking_id}`, { key: admin.key })).body.start_local.slice(11, 16)).toBe('11:00');
  });
});
