import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { ErrorCode, McpError, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';
import type { AnyOperation } from '@/server/http/operation';
import { getScheduleRulesOp, listMeetingClassesOp } from '@/server/http/operations/admin';
import { listBookingsOp } from '@/server/http/operations/schedulingLists';
import { executeOperation, type CallerContext, type ToolOutcome } from './execute';

/**
 * MCP resources (docs/agents.md "Resources and prompts"): read-only views a host may attach to a
 * conversation. Each read runs the REST operation the matching tool runs (server/mcp/execute.ts),
 * so authentication, permission, owner scope, rate limits and audit are those of REST:
 *   scheduler://bookings/mine{?from,to,status,limit,cursor}   GET /v1/bookings?agent=me (list_my_bookings)
 *   scheduler://owners/{owner_email}/schedule-rules         GET /v1/schedule-rules (get_schedule_rules)
 */
const MY_BOOKINGS_URI = 'scheduler://bookings/mine';
const MY_BOOKINGS_FILTERS = ['from', 'to', 'status', 'limit', 'cursor'] as const;
const RULES = new UriTemplate('scheduler://owners/{owner_email}/schedule-rules');
const JSON_TYPE = 'application/json';

/** resources/read of a URI this server does not serve (MCP spec: "Resource not found"). */
const RESOURCE_NOT_FOUND = -32002;
/** The JSON-RPC code the HTTP transport answers a rate limit with (server/mcp/http.ts). */
const RATE_LIMITED = -32001;

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    name: 'my_bookings',
    title: "This agent's bookings",
    uriTemplate: `${MY_BOOKINGS_URI}{?${MY_BOOKINGS_FILTERS.join(',')}}`,
    description: 'Bookings this agent made, by start, as list_my_bookings with agent=me (from/to keep those overlapping the span; next_cursor pages on).',
    mimeType: JSON_TYPE,
  },
  {
    name: 'schedule_rules',
    title: "An owner's schedule rules",
    uriTemplate: RULES.toString(),
    description: "An owner's time zone, working hours, date overrides, out-of-office ranges and hard blocks, as get_schedule_rules.",
    mimeType: JSON_TYPE,
  },
];

type Target = { op: AnyOperation; args: Record<string, unknown> };

/** What a resource URI reads, or null when this server has no such resource. */
export function resourceTarget(uri: string): Target | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'scheduler:') return null;
  if (`${url.protocol}//${url.host}${url.pathname}` === MY_BOOKINGS_URI) {
    const args: Record<string, unknown> = {};
    for (const [k, v] of url.searchParams) {
      if (!(MY_BOOKINGS_FILTERS as readonly string[]).includes(k)) {
        throw new McpError(ErrorCode.InvalidParams, `${MY_BOOKINGS_URI} takes ${MY_BOOKINGS_FILTERS.join(', ')}; not ${k} (it lists only this agent's own bookings)`);
      }
      args[k] = v;
    }
    return { op: listBookingsOp, args: { ...args, agent: 'me' } };
  }
  const vars = url.search || url.hash ? null : RULES.match(uri);
  const email = typeof vars?.owner_email === 'string' ? safeDecode(vars.owner_email) : null;
  return email ? { op: getScheduleRulesOp, args: { owner_email: email } } : null;
}

function safeDecode(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

/** The rules resource of one owner. */
export const rulesUri = (ownerEmail: string) => RULES.expand({ owner_email: ownerEmail });

/**
 * resources/list: this agent's bookings, and the rules of each owner in its scope (the owners
 * list_meeting_classes answers; without that tool's permission, none are listed, and a rules
 * resource is still read by its URI).
 */
export async function listResources(caller: CallerContext): Promise<Resource[]> {
  const [mine, rules] = RESOURCE_TEMPLATES;
  const resources: Resource[] = [{ uri: MY_BOOKINGS_URI, name: mine.name, title: mine.title, description: mine.description, mimeType: JSON_TYPE }];
  const listed = await executeOperation(listMeetingClassesOp, {}, caller);
  if (!listed.ok && listed.status !== 403) throw refusal(listed);
  const owners = listed.ok ? (listed.body.owners as { owner_email: string; time_zone: string }[]) : [];
  for (const o of owners) {
    resources.push({ uri: rulesUri(o.owner_email), name: `schedule_rules ${o.owner_email}`, title: `Schedule rules of ${o.owner_email}`, description: `${rules.description} Time zone ${o.time_zone}.`, mimeType: JSON_TYPE });
  }
  return resources;
}

/** resources/read: the operation's JSON answer, or its refusal as a JSON-RPC error carrying the REST error body. */
export async function readResource(uri: string, caller: CallerContext): Promise<ReadResourceResult> {
  const target = resourceTarget(uri);
  if (!target) throw new McpError(RESOURCE_NOT_FOUND, `Resource not found: ${uri} (see resources/templates/list)`, { uri });
  const outcome = await executeOperation(target.op, target.args, caller);
  if (!outcome.ok) throw refusal(outcome);
  return { contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(outcome.body) }] };
}

/**
 * A refused read as a JSON-RPC error: the message starts with the REST error code
 * (`owner_scope_denied: ...`) and `data` is the REST error body plus its status, as a tool error's
 * structured content is. 404 is the spec's "not found", 429 the transport's rate-limit code.
 */
function refusal(outcome: ToolOutcome): McpError {
  const error = outcome.body.error as { code?: string; message?: string } | undefined;
  const code = outcome.status === 404 ? RESOURCE_NOT_FOUND : outcome.status === 429 ? RATE_LIMITED : outcome.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new McpError(code, `${error?.code ?? 'error'}: ${error?.message ?? `status ${outcome.status}`}`, { status: outcome.status, ...outcome.body });
}
