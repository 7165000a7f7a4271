import { z } from 'zod';
import { operationWrites, type AnyOperation } from '@/server/http/operation';
import { dropNulls, IDEMPOTENCY_ARG } from './schema';

export { toolInputSchema } from './schema';
import { createAgentProposalOp, getAgentProposalOp } from '@/server/http/operations/proposals';
import { getScheduleRulesOp, getSelfOp, listMeetingClassesOp, listTimeZonesOp } from '@/server/http/operations/admin';
import { listPoolsOp } from '@/server/http/operations/pools';
import { bookingRemindersOp } from '@/server/http/operations/reminders';
import {
  cancelBookingOp,
  confirmHoldOp,
  createBookingOp,
  createHoldOp,
  evaluateOp,
  extendHoldOp,
  getBookingOp,
  getHoldOp,
  releaseHoldOp,
  rescheduleBookingOp,
  searchAvailabilityOp,
  updateBookingOp,
} from '@/server/http/operations/scheduling';
import { listBookingsOp, listHoldsOp } from '@/server/http/operations/schedulingLists';
import { notificationsOp } from '@/server/http/operations/feeds';
import { getWaitlistOp, joinWaitlistOp, leaveWaitlistOp, listWaitlistOp } from '@/server/http/operations/waitlist';

/**
 * The MCP tools (docs/agents.md "MCP"): each one is a REST operation, called
 * through the same wrapper (server/mcp/execute.ts), so permissions, owner
 * scope, rate limits, idempotency and audit cannot differ from REST. The
 * descriptions are written for a model and say only what is particular to
 * the tool (at most 400 characters); the rules common to every tool are said
 * once, in the server's `instructions` (MCP_INSTRUCTIONS).
 *
 * Annotations (toolAnnotations) follow what the operation does: `writes`
 * (server/http/operation.ts: every method but GET unless declared), plus the
 * tool's own `destructive` (it may remove or displace something: a cancel, a
 * release, a booking that may preempt a lower-priority one) and `idempotent`
 * (the same call again has no further effect) where the method does not say it.
 */
export type McpTool = { name: string; op: AnyOperation; description: string; destructive?: true; idempotent?: true };

export const MCP_INSTRUCTIONS = [
  'Scheduling tools for an AI agent acting with an API key. Typical flow: list_meeting_classes (valid meeting_class names and owner_email values), search_availability, create_hold, confirm_hold (or create_booking).',
  'Rules for every tool:',
  "- Times: inputs are RFC 3339 date-times with Z or an offset (e.g. 2030-01-07T14:00:00+01:00); answers give UTC (Z) plus start_local/end_local in the owner's time zone, and start_caller/end_caller in yours: time_zone (IANA) on any tool that answers times, default your key's or agent's display_time_zone. owner_email may be omitted by an agent scoped to one owner.",
  '- Optional arguments may be omitted or null. owner_email is an owner\'s email address.',
  '- list_my_bookings, list_my_holds: from/to keep the claims overlapping that span, agent (`me` or an agent id) only its claims, limit defaults to 50; pass next_cursor as cursor for the next page.',
  '- Several people: search_availability takes owner_emails (2-20, all must be free) instead of owner_email, optional_owner_emails (slots ranked by how many are free: free_optional) and min_optional (a quorum). max_per_day: at most that many slots per owner-local day.',
  '- A refusal is a tool error (isError) whose structured content has status, error.code (stable: switch on it), error.message and error.reason. ARBITRATION_REJECTED and NO_SLOTS_AVAILABLE carry alternatives (slots that would be accepted: offer or take one unchanged), next_available (the next slot that fits: search again from it) and conflicts (what the slot collided with: a hard block by its label, a booking by class, priority and sacredness, a hold, a calendar event; tell the person in those words). OUT_OF_OFFICE (the owner is away) carries out_of_office and next_available after it. INVALID_MEETING_CLASS carries valid_meeting_classes.',
  '- permission_denied:<permission> and owner_scope_denied: this key may not do it; do not retry, tell the person.',
  '- rate_limited: wait the number of seconds in retry_after_seconds (a field of the result), then retry the same call.',
  '- A weekly meeting: create_booking (or create_hold, candidate only) with recurrence, an RRULE from start in the owner\'s zone (FREQ DAILY, WEEKLY or MONTHLY; INTERVAL; BYDAY; BYMONTHDAY; COUNT up to 52 or UNTIL up to a year). create_booking also takes owner_emails (a group each time) or pool (pool_member: same member, default, or per_occurrence). All occurrences or none, unless min_occurrences (claim those accepted if at least that many); the claim answered is the first, series lists the rest and refused_occurrences each refusal. scope on cancel_booking, confirm_hold, release_hold and reschedule_booking (moves each occurrence by the same local shift): occurrence (default), following or series; all or none.',
  '- Mutating tools take idempotency_key: pass your own and reuse it when retrying a call whose answer you lost, so the effect happens once.',
  '- Every refusal carries pending_notifications; call drain_notifications regularly and act on each item.',
].join('\n');

export const MCP_TOOLS: readonly McpTool[] = [
  {
    name: 'list_meeting_classes',
    op: listMeetingClassesOp,
    description: 'Valid meeting_class names and owner_email values.',
  },
  {
    name: 'list_pools',
    op: listPoolsOp,
    description: 'Pools: pass pool (id or name) instead of owner_email to search, hold or book.',
  },
  {
    name: 'search_availability',
    op: searchAvailabilityOp,
    description:
      'Slots arbitration would accept now for meeting_class and duration_minutes in window or windows. Reserves nothing. distinct: no two overlap.',
  },
  {
    name: 'create_hold',
    op: createHoldOp,
    destructive: true,
    description:
      'Reserve time while a person decides: "candidate" holds candidate, "window" duration_minutes in window (all_free: every stretch). owner_emails: all or none. Confirm within ttl_seconds.',
  },
  {
    name: 'confirm_hold',
    op: confirmHoldOp,
    destructive: true,
    description:
      'Book start/end inside a hold (id: hold_id or group_id; window hold: inside held_windows). HOLD_EXPIRED: hold again. pending_approval: as create_booking.',
  },
  {
    name: 'create_booking',
    op: createBookingOp,
    destructive: true,
    description:
      'Book without a hold (owner_emails: all or none); may preempt lower priorities. pending_approval: the owner decides (booking.approved or booking.declined follows).',
  },
  {
    name: 'evaluate_booking',
    op: evaluateOp,
    description: 'Dry run: the decision booking this slot would get now.',
  },
  {
    name: 'cancel_booking',
    op: cancelBookingOp,
    destructive: true,
    idempotent: true,
    description: 'Cancel a booking (id: booking_id or group_id).',
  },
  {
    name: 'reschedule_booking',
    op: rescheduleBookingOp,
    destructive: true,
    description: 'Move a booking (id: booking_id) to start/end, arbitrated anew; refused: unchanged.',
  },
  {
    name: 'update_booking',
    op: updateBookingOp,
    idempotent: true,
    description: 'Edit title, description or attendees (full list) of a booking (id: booking_id).',
  },
  {
    name: 'extend_hold',
    op: extendHoldOp,
    description: 'Set an active hold (id: hold_id) to expire ttl_seconds from now.',
  },
  {
    name: 'get_hold',
    op: getHoldOp,
    description: 'Read a hold (id: hold_id): status, booking_id.',
  },
  {
    name: 'release_hold',
    op: releaseHoldOp,
    destructive: true,
    description: 'Release a hold (id: hold_id) you no longer need.',
  },
  {
    name: 'join_waitlist',
    op: joinWaitlistOp,
    description: "Wait for duration_minutes of an owner's time between window_start and window_end (a single slot: a window of its duration). When time there frees up you get a hold on it (notification waitlist.offered); confirm it as any hold.",
  },
  {
    name: 'list_waitlist',
    op: listWaitlistOp,
    description: 'Your waitlist entries and their status (offered: hold_id is yours).',
  },
  {
    name: 'get_waitlist_entry',
    op: getWaitlistOp,
    description: 'Read a waitlist entry (id).',
  },
  {
    name: 'leave_waitlist',
    op: leaveWaitlistOp,
    destructive: true,
    idempotent: true,
    description: 'Leave the waitlist (id); an offered hold stays yours.',
  },
  {
    name: 'get_booking',
    op: getBookingOp,
    description: 'Read a booking (id: booking_id).',
  },
  {
    name: 'get_booking_reminders',
    op: bookingRemindersOp,
    description: "A booking's reminders (id: booking_id): offset, due time, status.",
  },
  {
    name: 'get_schedule_rules',
    op: getScheduleRulesOp,
    description: "An owner's zone, working hours, date overrides, hard blocks, daily limit.",
  },
  {
    name: 'list_time_zones',
    op: listTimeZonesOp,
    description: 'The IANA time zone names this server accepts.',
  },
  {
    name: 'drain_notifications',
    op: notificationsOp,
    description:
      'Take pending notifications (up to 50), marking them delivered.',
  },
  {
    name: 'create_booking_proposal',
    op: createAgentProposalOp,
    description: 'Ask the owner to pick among up to 5 candidate slots in window; proposal.reviewed follows.',
  },
  {
    name: 'get_booking_proposal',
    op: getAgentProposalOp,
    description: 'Read a proposal (id: proposal_id).',
  },
  {
    name: 'list_my_bookings',
    op: listBookingsOp,
    description: 'List bookings. Check it after a lost answer before booking again.',
  },
  {
    name: 'list_my_holds',
    op: listHoldsOp,
    description: 'List holds.',
  },
  {
    name: 'who_am_i',
    op: getSelfOp,
    description: 'This agent: owner_scope, permissions, rate limits.',
  },
];

/** The MCP annotations of a tool, from what its operation does (see McpTool). */
export function toolAnnotations(t: McpTool) {
  // destructiveHint and idempotentHint mean something only when readOnlyHint is false (MCP spec)
  if (!operationWrites(t.op)) return { readOnlyHint: true, openWorldHint: false };
  return {
    readOnlyHint: false,
    destructiveHint: t.op.method === 'DELETE' || t.destructive === true,
    idempotentHint: t.op.method === 'DELETE' || t.op.method === 'PUT' || t.idempotent === true,
    openWorldHint: false,
  };
}

/** Splits a tool's arguments back into path params, query and body by the operation's schemas (nulls for absent optional fields dropped). */
export function splitArguments(op: AnyOperation, args: Record<string, unknown>) {
  const keysOf = (s: unknown) => (s instanceof z.ZodObject ? Object.keys(s.shape) : []);
  const paramKeys = new Set(keysOf(op.params));
  const queryKeys = new Set(keysOf(op.query));
  const params: Record<string, string> = {};
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  let idempotencyKey: string | undefined;
  for (const [k, v] of Object.entries(dropNulls(op, args))) {
    if (k === IDEMPOTENCY_ARG && typeof v === 'string') idempotencyKey = v;
    else if (paramKeys.has(k)) params[k] = String(v);
    else if (queryKeys.has(k)) {
      if (v !== undefined && v !== null) query.set(k, String(v));
    } else if (op.body) body[k] = v;
    else if (v !== undefined && v !== null) query.set(k, typeof v === 'string' ? v : JSON.stringify(v)); // refused by a strict query schema, as on REST
  }
  return { params, query, body: op.body ? body : undefined, idempotencyKey };
}

/**
 * The byte budget of the whole tools/list answer (docs/agents.md "MCP"): 12 KB for the 17 tools
 * it was set for, plus 600 bytes for each tool added since (pools, reschedule, edit, extend, time zones), so
 * a new tool pays its way and the listing cannot drift back towards its old 39 KB; plus 200 bytes
 * for the series fields added to existing tools (issue 40: recurrence on create_hold, scope on
 * confirm_hold, release_hold and reschedule_booking; their meaning is said once, in the instructions),
 * and 100 for pool_member on create_booking (group and pool series).
 */
const SERIES_FIELDS_BYTES = 300;
export const TOOLS_LIST_BUDGET_BYTES = 12 * 1024 + Math.max(0, MCP_TOOLS.length - 17) * 600 + SERIES_FIELDS_BYTES;
