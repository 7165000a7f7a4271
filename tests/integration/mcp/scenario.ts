import { expect } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MCP_TOOLS } from '@/server/mcp/tools';
import { checkAnswer } from '../../helpers/app';

/** The tools docs/agents.md lists. */
export const EXPECTED_TOOLS = [
  'list_meeting_classes',
  'list_pools',
  'search_availability',
  'create_hold',
  'confirm_hold',
  'create_booking',
  'evaluate_booking',
  'cancel_booking',
  'reschedule_booking',
  'update_booking',
  'extend_hold',
  'get_hold',
  'release_hold',
  'join_waitlist',
  'list_waitlist',
  'get_waitlist_entry',
  'leave_waitlist',
  'get_booking',
  'get_booking_reminders',
  'get_schedule_rules',
  'list_time_zones',
  'drain_notifications',
  'create_booking_proposal',
  'get_booking_proposal',
  'list_my_bookings',
  'list_my_holds',
  'who_am_i',
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- structured content is asserted field by field
export type Structured = Record<string, any>;

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; data: Structured }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = res.content.find((c) => c.type === 'text');
  const data = (res.structuredContent ?? JSON.parse(text && text.type === 'text' ? text.text : '{}')) as Structured;
  // the text block carries the same JSON, for clients that ignore structured content
  expect(JSON.parse(text && text.type === 'text' ? text.text : 'null')).toEqual(data);
  await checkToolAnswer(name, Boolean(res.isError), data);
  return { isError: Boolean(res.isError), data };
}

/**
 * A tool runs one REST operation (server/mcp/execute.ts): its answer is checked against that
 * operation in the OpenAPI document like any REST answer (tests/helpers/openapiValidator.ts). A
 * refusal carries the REST error body plus `status` and, after a 429, `retry_after_seconds`.
 */
async function checkToolAnswer(name: string, isError: boolean, data: Structured): Promise<void> {
  const op = MCP_TOOLS.find((t) => t.name === name)?.op;
  if (!op) return; // an unknown tool is the MCP server's own refusal, not a REST answer
  const { status, retry_after_seconds: _wait, ...refusal } = data;
  const body = isError ? refusal : data;
  await checkAnswer({ method: op.method, path: op.path, status: isError ? status : op.success.status, contentType: 'application/json', body: Object.keys(body).length ? body : undefined });
}

/** Lists tools, then search -> hold -> confirm, then a direct booking of the taken slot is refused with alternatives. */
export async function searchHoldConfirm(client: Client, owner: string, at: (hhmm: string) => string) {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([...EXPECTED_TOOLS].sort());
  const hold = tools.find((t) => t.name === 'create_hold')!;
  expect(hold.inputSchema.type).toBe('object');
  expect(hold.inputSchema).not.toHaveProperty('oneOf');
  expect(Object.keys(hold.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['hold_scope', 'candidate', 'window', 'duration_minutes', 'coverage']));
  expect(JSON.stringify(hold.inputSchema)).toContain('all_free');
  expect(hold.description).toMatch(/all_free/);
  // the rules every tool shares arrive once, at initialize
  expect(client.getInstructions()).toMatch(/alternatives/);
  expect(client.getInstructions()).toMatch(/retry_after_seconds/);
  // the valid meeting classes and the owners in scope
  const classes = await callTool(client, 'list_meeting_classes', {});
  expect(classes.isError, JSON.stringify(classes.data)).toBe(false);
  expect(classes.data.meeting_classes.map((c: { name: string }) => c.name)).toContain('internal');
  expect(classes.data.owners.map((o: { owner_email: string }) => o.owner_email)).toContain(owner);
  const confirmTool = tools.find((t) => t.name === 'confirm_hold')!;
  expect(Object.keys(confirmTool.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['id', 'start', 'end', 'idempotency_key']));

  const window = { start: at('09:00'), end: at('12:00') };
  const search = await callTool(client, 'search_availability', { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window });
  expect(search.isError, JSON.stringify(search.data)).toBe(false);
  const slot = search.data.slots[0];
  expect(slot).toMatchObject({ start: at('09:00'), end: at('09:30') });

  // a strict host sends every field, null where unused: the same hold
  const unused = { calendar_type: null, ttl_seconds: null, duration_minutes: null, window: null, coverage: null, idempotency_key: null };
  const held = await callTool(client, 'create_hold', { ...unused, owner_email: owner, meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: slot.start, end: slot.end } });
  expect(held.isError, JSON.stringify(held.data)).toBe(false);
  expect(held.data).toMatchObject({ hold_scope: 'candidate', status: 'active' });

  const confirmArgs = { id: held.data.hold_id, start: slot.start, end: slot.end, title: 'Intro', idempotency_key: `confirm-${held.data.hold_id}` };
  const confirmed = await callTool(client, 'confirm_hold', confirmArgs);
  expect(confirmed.isError, JSON.stringify(confirmed.data)).toBe(false);
  expect(confirmed.data).toMatchObject({ hold_id: held.data.hold_id, status: 'confirmed', title: 'Intro' });
  // the same idempotency_key replays the booking, exactly as an Idempotency-Key retry on REST
  expect((await callTool(client, 'confirm_hold', confirmArgs)).data).toEqual(confirmed.data);

  // the taken slot: a structured ARBITRATION_REJECTED with alternatives, as a tool error
  const refused = await callTool(client, 'create_booking', { owner_email: owner, meeting_class: 'internal', start: slot.start, end: slot.end });
  expect(refused.isError).toBe(true);
  expect(refused.data.status).toBe(409);
  expect(refused.data.error).toMatchObject({ code: 'ARBITRATION_REJECTED', reason: expect.any(String) });
  expect(refused.data.alternatives.length).toBeGreaterThan(0);
  expect(refused.data.alternatives[0]).toMatchObject({ start: expect.any(String), end: expect.any(String), reason_code: expect.any(String) });
  // conflicts[]: what the slot collided with (the booking just made, by class and rank only)
  expect(refused.data.conflicts).toEqual([{ kind: 'booking', meeting_class: 'internal', priority: expect.any(Number), sacred: false }]);
  expect(JSON.stringify(refused.data)).not.toContain(confirmed.data.booking_id);
  expect(Array.isArray(refused.data.pending_notifications)).toBe(true);

  // taking the first alternative, unchanged, books
  const alt = refused.data.alternatives[0];
  const booked = await callTool(client, 'create_booking', { owner_email: owner, meeting_class: 'internal', start: alt.start, end: alt.end });
  expect(booked.isError, JSON.stringify(booked.data)).toBe(false);
  expect(booked.data.status).toBe('confirmed');

  // an all_free window hold over the afternoon holds each free stretch and reads back with them
  const whole = await callTool(client, 'create_hold', { owner_email: owner, meeting_class: 'internal', hold_scope: 'window', coverage: 'all_free', duration_minutes: 30, window: { start: at('13:00'), end: at('17:00') } });
  expect(whole.isError, JSON.stringify(whole.data)).toBe(false);
  expect(whole.data).toMatchObject({ coverage: 'all_free', held_windows: [{ start: at('13:00'), end: at('17:00') }] });
  const read = await callTool(client, 'get_hold', { id: whole.data.hold_id });
  expect(read.data.held_windows).toEqual(whole.data.held_windows);
}

/** A key without create_bookings: the permission error arrives as a tool error; reads still work. */
export async function permissionRefused(client: Client, owner: string, at: (hhmm: string) => string) {
  const refused = await callTool(client, 'create_booking', { owner_email: owner, meeting_class: 'internal', start: at('14:00'), end: at('14:30') });
  expect(refused.isError).toBe(true);
  expect(refused.data).toMatchObject({ status: 403, error: { code: 'permission_denied:create_bookings' } });
  const search = await callTool(client, 'search_availability', { owner_email: owner, meeting_class: 'internal', duration_minutes: 30, window: { start: at('14:00'), end: at('15:00') } });
  expect(search.isError, JSON.stringify(search.data)).toBe(false);
}
