import { z } from 'zod';
import { ErrorCode, McpError, type GetPromptResult, type Prompt, type PromptMessage } from '@modelcontextprotocol/sdk/types.js';
import { Email, UtcDateTime } from '@/server/schemas/common';
import { AvailabilitySearchBody } from '@/server/schemas/scheduling';
import { rulesUri } from './resources';

/**
 * MCP prompts (docs/agents.md "Resources and prompts"): `find_a_time` walks a host through
 * search -> hold -> confirm with the tools this server lists. Prompt arguments are strings; they
 * are checked with the schemas the tools validate with (an owner email, the search's
 * duration_minutes, RFC 3339 date-times), and a bad one is refused with InvalidParams.
 */
const FIND_A_TIME = 'find_a_time';

export const PROMPTS: Prompt[] = [
  {
    name: FIND_A_TIME,
    title: 'Find a time with …',
    description: 'Find a meeting time with one or more owners: search_availability, then create_hold on the slot the person picks, then confirm_hold when they agree.',
    arguments: [
      { name: 'who', description: 'Owner email, or several separated by commas (all must attend)', required: true },
      { name: 'duration', description: 'Length in minutes (5-480)', required: true },
      { name: 'window', description: 'When: start/end as RFC 3339 date-times (2030-01-07T09:00:00Z/2030-01-11T17:00:00Z), or in words; default the next 7 days' },
      { name: 'meeting_class', description: 'The meeting class; default: choose one with list_meeting_classes' },
      { name: 'title', description: 'The booking title' },
    ],
  },
];

const FindATimeArgs = z.object({
  who: z
    .string()
    .transform((s) => s.split(',').map((e) => e.trim()).filter(Boolean))
    .pipe(z.array(Email).min(1).max(20)), // one owner_email, or owner_emails (2-20)
  duration: z.coerce.number().pipe(AvailabilitySearchBody.shape.duration_minutes),
  window: z.string().trim().min(1).max(200).optional(),
  meeting_class: AvailabilitySearchBody.shape.meeting_class.optional(),
  title: z.string().min(1).max(300).optional(),
});

/** A window given as `start/end` in RFC 3339, or null when it is words the model must turn into one. */
function isoWindow(text: string): { start: string; end: string } | null {
  const [start, end, ...rest] = text.split('/').map((s) => s.trim());
  if (rest.length || !UtcDateTime.safeParse(start).success || !UtcDateTime.safeParse(end).success) return null;
  return Date.parse(start) < Date.parse(end) ? { start, end } : null;
}

/** prompts/get: the rendered steps, then a link to each owner's rules resource. */
export function getPrompt(name: string, args: Record<string, string> | undefined): GetPromptResult {
  if (name !== FIND_A_TIME) throw new McpError(ErrorCode.InvalidParams, `No prompt named ${name} (prompts/list: ${PROMPTS.map((p) => p.name).join(', ')})`);
  const parsed = FindATimeArgs.safeParse(args ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ');
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${FIND_A_TIME}: ${problems}`);
  }
  const { who, duration, window, meeting_class: meetingClass, title } = parsed.data;
  const iso = window ? isoWindow(window) : null;
  const ownersArg = who.length === 1 ? `owner_email ${JSON.stringify(who[0])}` : `owner_emails ${JSON.stringify(who)}`;
  const windowArg = iso
    ? `window ${JSON.stringify(iso)}`
    : `window {start, end} as RFC 3339 date-times covering ${window ? JSON.stringify(window) : 'the next 7 days from now'} (ask me if that is unclear)`;
  const classStep = meetingClass
    ? `Use meeting_class ${JSON.stringify(meetingClass)}.`
    : 'Call list_meeting_classes and choose the meeting_class that fits (ask me if several could).';
  const titleArg = title ? `, title ${JSON.stringify(title)}` : '';
  const steps = [
    `Find a ${duration}-minute meeting with ${who.join(', ')}${title ? ` titled ${JSON.stringify(title)}` : ''}. Use the scheduler tools step by step, and book nothing I have not agreed to.`,
    `1. Prepare: ${classStep} The schedule rules of ${who.length === 1 ? 'the owner' : 'each owner'} (attached below, or get_schedule_rules) give working hours, date overrides and out-of-office.`,
    `2. Search: call search_availability with ${ownersArg}, meeting_class, duration_minutes ${duration}, ${windowArg}, max_results 5. It reserves nothing. On NO_SLOTS_AVAILABLE or OUT_OF_OFFICE, search again from next_available or in a wider window.`,
    `3. Hold: show me the slots in the owners' local time (start_local, end_local). When I pick one, call create_hold with hold_scope "candidate", candidate {start, end} of that slot unchanged, the same ${who.length === 1 ? 'owner_email' : 'owner_emails'} and meeting_class, and an idempotency_key of your own. If it is refused with ARBITRATION_REJECTED, offer me its alternatives.`,
    `4. Confirm: when I agree, call confirm_hold with id = the hold's ${who.length === 1 ? 'hold_id' : 'group_id'}, the slot's start and end${titleArg}, and an idempotency_key (reuse it if you retry). On HOLD_EXPIRED, hold again; if I change my mind, call release_hold.`,
    '5. Tell me the booking_id and the time in each owner\'s zone. If a call is refused, tell me error.code and what it means before trying anything else.',
  ].join('\n');
  const messages: PromptMessage[] = [{ role: 'user', content: { type: 'text', text: steps } }];
  for (const email of who) {
    messages.push({ role: 'user', content: { type: 'resource_link', uri: rulesUri(email), name: `schedule_rules ${email}`, title: `Schedule rules of ${email}`, mimeType: 'application/json' } });
  }
  return { description: `Find ${duration} minutes with ${who.join(', ')}`, messages };
}
