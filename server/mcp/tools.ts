import { z } from 'zod';
import type { AnyOperation } from '@/server/http/operation';
import { createAgentProposalOp, getAgentProposalOp } from '@/server/http/operations/proposals';
import { getScheduleRulesOp, getSelfOp } from '@/server/http/operations/admin';
import {
  cancelBookingOp,
  confirmHoldOp,
  createBookingOp,
  createHoldOp,
  evaluateOp,
  getBookingOp,
  getHoldOp,
  listBookingsOp,
  listHoldsOp,
  notificationsOp,
  releaseHoldOp,
  searchAvailabilityOp,
} from '@/server/http/operations/scheduling';

/**
 * The MCP tools (docs/agents.md "MCP"): each one is a REST operation, called
 * through the same wrapper (server/mcp/execute.ts), so permissions, owner
 * scope, rate limits, idempotency and audit cannot differ from REST. The
 * descriptions are written for a model.
 */
export type McpTool = { name: string; op: AnyOperation; description: string };

const REFUSALS =
  'A refusal comes back as a tool error (isError) whose structured content carries `status` and `error.code` (stable), ' +
  '`error.reason`, `error.message`, and, for ARBITRATION_REJECTED / NO_SLOTS_AVAILABLE, `alternatives` (slots that would be accepted: ' +
  'offer or take one instead, unchanged), `next_available` (the next slot that fits) and, for ARBITRATION_REJECTED, `conflicts` (what the slot ' +
  'collided with: a hard_block by its label such as Lunch, a booking by meeting_class/priority/sacred, a hold, a calendar_event; tell the user in those words). permission_denied:<permission> means this key ' +
  'lacks that permission: do not retry, tell the user. rate_limited carries `retry_after_seconds`: wait that long, then retry.';
const RETRY = 'Mutating: pass the same `idempotency_key` when retrying after a lost answer so the effect happens once.';

export const MCP_TOOLS: readonly McpTool[] = [
  {
    name: 'search_availability',
    op: searchAvailabilityOp,
    description:
      "Find slots in an owner's calendar that arbitration would accept now, within a window, for a meeting class and duration. " +
      'Use it first, before holding or booking. Nothing is reserved: hold a slot (create_hold) to keep it while you ask the user. ' +
      'No slot answers NO_SLOTS_AVAILABLE with reason_code and next_available: search again from next_available. ' +
      REFUSALS,
  },
  {
    name: 'create_hold',
    op: createHoldOp,
    description:
      'Reserve time for a short while (ttl_seconds) without booking: hold_scope "candidate" holds exactly one slot (candidate {start,end}); ' +
      'hold_scope "window" holds the earliest free stretch of duration_minutes inside window {start,end}; with coverage "all_free" it holds every ' +
      'free stretch of the window that fits (held_windows[]), so the person may still pick any free time in it, and confirm_hold releases the rest. ' +
      'Use it when a human must still agree; ' +
      'then confirm_hold with the hold_id. ARBITRATION_REJECTED with alternatives means the slot is not available: hold one of the alternatives instead. ' +
      REFUSALS +
      ' ' +
      RETRY,
  },
  {
    name: 'confirm_hold',
    op: confirmHoldOp,
    description:
      'Turn an active hold into a booking: id is the hold_id, start/end the slot inside the hold (for a candidate hold, the held slot; for an all_free ' +
      'window hold, inside any of its held_windows, the others are released). ' +
      'HOLD_EXPIRED / HOLD_NOT_ACTIVE mean the hold is gone: search and hold again. ' +
      REFUSALS +
      ' ' +
      RETRY,
  },
  {
    name: 'create_booking',
    op: createBookingOp,
    description:
      'Book a slot directly, without a hold, when you already know the slot and have the authority to commit it. ' +
      'ARBITRATION_REJECTED with alternatives is a counter-proposal: book one of the alternatives (exactly as given) or ask the user. ' +
      REFUSALS +
      ' ' +
      RETRY,
  },
  {
    name: 'evaluate_booking',
    op: evaluateOp,
    description:
      'Dry run: the decision (accept, reject or counter_propose, with reason and alternatives) a booking of this slot would get now. ' +
      'No side effect and nothing reserved; the answer can change by the time you book. ' +
      REFUSALS,
  },
  {
    name: 'cancel_booking',
    op: cancelBookingOp,
    description: 'Cancel a booking by booking_id, with an optional reason. BOOKING_NOT_ACTIVE means it is already cancelled. ' + REFUSALS + ' ' + RETRY,
  },
  {
    name: 'get_hold',
    op: getHoldOp,
    description: 'Read a hold by hold_id: its status (active, promoted, expired, released, preempted), slot and expiry. ' + REFUSALS,
  },
  {
    name: 'release_hold',
    op: releaseHoldOp,
    description: 'Release an active hold you no longer need, so the time is free for others before the hold expires. ' + REFUSALS + ' ' + RETRY,
  },
  {
    name: 'get_booking',
    op: getBookingOp,
    description: 'Read a booking by booking_id: its slot, status and meeting class. ' + REFUSALS,
  },
  {
    name: 'get_schedule_rules',
    op: getScheduleRulesOp,
    description:
      "Read an owner's schedule rules: time zone, working hours, working days, hard blocks and maximum daily meeting hours. " +
      'Use it to explain a WORKING_HOURS, OFF_DAY or MAX_DAILY_HOURS refusal, or to pick sensible windows. ' +
      REFUSALS,
  },
  {
    name: 'drain_notifications',
    op: notificationsOp,
    description:
      "Take this agent's pending notifications (oldest first, up to 50; they are then marked delivered): bookings preempted by higher-priority ones, " +
      'proposals reviewed by the owner, and similar. Call it regularly and act on each one (e.g. rebook a preempted meeting). ' +
      REFUSALS,
  },
  {
    name: 'create_booking_proposal',
    op: createAgentProposalOp,
    description:
      'Ask the owner instead of booking: up to 5 candidate slots in the window go to the owner for review. Use it when you may not book directly ' +
      'or the owner should decide. The outcome arrives as a proposal.reviewed notification (drain_notifications) or via get_booking_proposal. ' +
      REFUSALS +
      ' ' +
      RETRY,
  },
  {
    name: 'list_my_bookings',
    op: listBookingsOp,
    description:
      "Read back bookings: filter by owner_email, from/to, status, and agent ('me' for this agent's own). Cursor-paged (next_cursor). " +
      'Use it after a restart or a lost answer to see what is already booked before booking again. ' +
      REFUSALS,
  },
  {
    name: 'list_my_holds',
    op: listHoldsOp,
    description:
      "Read back holds: filter by owner_email, from/to, status (active, expired, promoted, ...), and agent ('me' for this agent's own). Cursor-paged. " +
      'Use it to find a hold to confirm or release. ' +
      REFUSALS,
  },
  {
    name: 'who_am_i',
    op: getSelfOp,
    description: 'This agent: its id, name, owner scope (which calendar owners it may act for), permissions, key prefix and rate-limit budgets. ' + REFUSALS,
  },
  {
    name: 'get_booking_proposal',
    op: getAgentProposalOp,
    description: "Read a booking proposal's status (pending, booked, declined, ...), its candidates and, once booked, booking_id. " + REFUSALS,
  },
];

/** Added to every mutating tool's input: the Idempotency-Key of the call (one is generated when absent). */
export const IDEMPOTENCY_ARG = 'idempotency_key';

type JsonSchema = { type?: string; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/**
 * The tool's input schema: the operation's path, query and body schemas
 * flattened into one object (a body that is a union of objects stays one,
 * typed as an object; operations with such a body have no path or query).
 */
export function toolInputSchema(op: AnyOperation): JsonSchema {
  const parts = [op.params, op.query, op.body].filter(Boolean).map((s) => jsonSchemaOf(s as z.ZodType));
  let out: JsonSchema;
  if (parts.length === 1 && !parts[0].properties) out = { ...parts[0], type: 'object' };
  else {
    out = { type: 'object', properties: {}, required: [], additionalProperties: false };
    for (const p of parts) {
      if (p.type !== 'object' || !p.properties) throw new Error(`${op.operationId}: only object schemas can be flattened into a tool input`);
      Object.assign(out.properties!, p.properties);
      out.required!.push(...(p.required ?? []));
    }
  }
  if (op.method !== 'GET' && op.idempotency !== false) {
    const idem = { type: 'string', minLength: 1, maxLength: 255, description: 'Idempotency-Key of this call; reuse it when retrying the same call' };
    const withIdem = (s: JsonSchema): JsonSchema => ({ ...s, properties: { ...(s.properties ?? {}), [IDEMPOTENCY_ARG]: idem } });
    out = withIdem(out);
    // a union's branches are closed objects: each one admits the argument too
    for (const k of ['anyOf', 'oneOf'] as const) if (Array.isArray(out[k])) out = { ...out, [k]: (out[k] as JsonSchema[]).map(withIdem) };
  }
  return out;
}

/** Splits a tool's arguments back into path params, query and body by the operation's schemas. */
export function splitArguments(op: AnyOperation, args: Record<string, unknown>) {
  const keysOf = (s: unknown) => (s instanceof z.ZodObject ? Object.keys(s.shape) : []);
  const paramKeys = new Set(keysOf(op.params));
  const queryKeys = new Set(keysOf(op.query));
  const params: Record<string, string> = {};
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  let idempotencyKey: string | undefined;
  for (const [k, v] of Object.entries(args)) {
    if (k === IDEMPOTENCY_ARG && typeof v === 'string') idempotencyKey = v;
    else if (paramKeys.has(k)) params[k] = String(v);
    else if (queryKeys.has(k)) {
      if (v !== undefined && v !== null) query.set(k, String(v));
    } else if (op.body) body[k] = v;
    else if (v !== undefined && v !== null) query.set(k, typeof v === 'string' ? v : JSON.stringify(v)); // refused by a strict query schema, as on REST
  }
  return { params, query, body: op.body ? body : undefined, idempotencyKey };
}
