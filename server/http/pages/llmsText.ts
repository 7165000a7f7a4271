import { getConfig } from '@/server/config';
import { getDb } from '@/server/db';
import { isDomainError } from '@/server/domain/errors';
import { agentLinkView, type AgentLinkView, type AgentLocation, type AgentMeetingType } from '@/server/domain/publicScheduling/requester';
import { getRateLimiter, RATE_LIMITS } from '@/server/rateLimit';
import { rateLimitKeys } from '@/server/rateLimit/keys';
import { clientIpOf, publicBaseUrl } from '@/server/request';

/**
 * `/{alias}/llms.txt` (docs/public-scheduling.md "For agents"): a link's page in plain text for a
 * software agent, in the llms.txt shape (a title, a one-line summary, sections). Who the link
 * belongs to (display name), the types anyone may book with their lengths, notice and kind of
 * location, and how to book them through the /public API (a worked example with the first
 * type) or, for an agent with a key of this service, through MCP.
 */

const LOCATION: Record<Exclude<AgentLocation, null>, string> = {
  google_meet: 'Google Meet video call (the link is sent once booked)',
  microsoft_teams: 'Microsoft Teams video call (the link is sent once booked)',
  video_link: 'video call (the link is sent once booked)',
  in_person: 'in person (the address is sent once booked)',
};

const minutes = (list: number[]) => list.map((m) => `${m} min`).join(', ');

function typeLines(t: AgentMeetingType, base: string, alias: string): string[] {
  const lines = [`### ${t.title}`, '', `- Page: ${base}/${alias}/${t.slug}`, `- Slug: \`${t.slug}\``, `- Durations: ${minutes(t.duration_minutes)}`];
  if (t.host_names) lines.push(`- With: ${t.host_names}`);
  lines.push(`- Location: ${t.location ? LOCATION[t.location] : 'not stated (the host says once booked)'}`);
  lines.push(`- Notice: ${t.min_notice_hours ? `book at least ${t.min_notice_hours} hour${t.min_notice_hours === 1 ? '' : 's'} ahead` : 'none beyond the suggested times'}`);
  if (t.attendee_limit !== null) lines.push(`- People: at most ${t.attendee_limit}, the requester included`);
  lines.push(`- Confirmation: ${t.books_instantly ? 'booked at once once the requester confirms their email, if the time is still free' : 'the host accepts or declines after the requester confirms their email'}`);
  if (t.description) lines.push('', ...t.description.split('\n').map((l) => `> ${l}`));
  return [...lines, ''];
}

function llmsText(view: AgentLinkView, base: string): string {
  const who = view.owner_name ?? 'the calendar owner';
  const heading = view.title ?? `Book a meeting with ${who}`;
  const first = view.meeting_types[0];
  const d = first?.duration_minutes[0] ?? 30;
  const link = `${base}/public/schedules/${view.alias}`;
  const out = [
    `# ${heading}`,
    '',
    `> A booking page of ${who}. People book at ${base}/${view.alias}; agents book through the JSON API below. Times are UTC (RFC 3339) unless an offset is given.`,
    '',
    `Owner: ${who}`,
    '',
    '## Meeting types',
    '',
    ...(view.meeting_types.length ? view.meeting_types.flatMap((t) => typeLines(t, base, view.alias)) : ['No meeting types can be booked here right now. A request in your own words still can (see below).', '']),
    '## Booking through the API (no key needed)',
    '',
    `1. \`GET ${link}\` lists the types above as JSON.`,
    `2. \`GET ${link}/meeting-types/{slug}/suggested-times?duration_minutes={minutes}\` answers up to 50 free times of the next 14 days (\`from\` and \`to\` move the window; \`time_zone\` adds local times).`,
    `3. \`POST ${link}/booking-proposals\` with one of those times exactly. The answer (201) has \`status_url\`; the requester gets an email with a link to confirm their address, and nothing is booked before they do.`,
    '4. `GET {status_url}` with `Accept: application/json` follows the request: `pending_requester_verification`, `pending_review`, `booked`, `declined`, `withdrawn`, `expired`. `POST {status_url}/withdraw` withdraws it while pending.',
    '',
    'A request in the requester\'s own words: the same POST without `public_meeting_type` and `duration_minutes`, with a `message` (and optionally a wished `requested_window`).',
    '',
    '### Worked example',
    '',
    '```sh',
    `curl -s '${link}/meeting-types/${first?.slug ?? '{slug}'}/suggested-times?duration_minutes=${d}'`,
    `# => {"suggested_times":[{"start":"2030-01-07T09:00:00.000Z","end":"2030-01-07T09:${String(d % 60).padStart(2, '0')}:00.000Z", ...}, ...]}`,
    '',
    `curl -s -X POST '${link}/booking-proposals' -H 'content-type: application/json' -d '{`,
    `  "public_meeting_type": "${first?.slug ?? '{slug}'}",`,
    `  "duration_minutes": ${d},`,
    `  "requested_window": {"start": "<start of a suggested time>", "end": "<its end>"},`,
    '  "requester_contact": {"email": "<the requester\'s email>", "name": "<their name>"},',
    '  "attendees": []',
    `}'`,
    `# => 201 {"status":"pending_requester_verification","status_url":"${base}/public/booking-proposals/pt_..."}`,
    '```',
    '',
    'Errors are JSON `{"error":{"code","message"}}`: `409 time_unavailable` (pick another suggested time), `400 attendee_limit_exceeded`, `404 not_found`, `429 rate_limited`. Book only for a person who asked you to, with their own email address.',
    '',
    '## Agents with a key',
    '',
    `An agent of this service's customer (an API key \`ak_...\`) uses the MCP server at \`${base}/mcp\` (Streamable HTTP, \`Authorization: Bearer <key>\`) or the REST API under \`${base}/v1\`. Reference: ${base}/docs/api and ${base}/v1/openapi.json.`,
    '',
  ];
  return out.join('\n');
}

const TEXT = { 'content-type': 'text/plain; charset=utf-8' };

/**
 * GET /{alias}/llms.txt. Anonymous, as the link page: the same global per-address limit, the same
 * 404 for an unknown or deleted link. Cached briefly by clients (a minute), never shared.
 */
export async function llmsTxtResponse(req: Request, alias: string): Promise<Response> {
  const config = getConfig();
  const allowed = await getRateLimiter().limit(RATE_LIMITS.global, rateLimitKeys.ip(clientIpOf(req, config.trustProxy)));
  if (!allowed.success) return new Response('Too many requests; please try again in a minute.\n', { status: 429, headers: { ...TEXT, 'retry-after': '60' } });
  try {
    const view = await agentLinkView(await getDb(), alias);
    return new Response(llmsText(view, publicBaseUrl(req, config.publicBaseUrl)), { headers: { ...TEXT, 'cache-control': 'private, max-age=60' } });
  } catch (err) {
    if (isDomainError(err) && err.code === 'not_found') return new Response('Not found.\n', { status: 404, headers: TEXT });
    throw err;
  }
}
