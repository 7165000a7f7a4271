import type { Permission } from '@/db/schema';

/**
 * The one catalogue of error codes: code, HTTP status, description. It types
 * DomainError's code (a typo is a type error, not a 500), and both transports
 * read it: the REST wrapper's error envelope (server/http/envelope.ts), the
 * tRPC error formatter (server/trpc/init.ts) and the OpenAPI document's
 * per-operation `error.code` enums (server/http/openapi.ts). See
 * docs/architecture.md "Error codes".
 *
 * Conventions: protocol-level codes (auth, validation, transport, public
 * scheduling) are lowercase; agent-facing domain codes are UPPER_SNAKE.
 * `permission_denied` is a family: the code sent is `permission_denied:<perm>`.
 */
export const ERROR_CODES = {
  // transport and validation
  invalid_request: { status: 400, description: 'The request failed validation; error.details.fields names each failing field' },
  invalid_json: { status: 400, description: 'The body is not valid JSON' },
  payload_too_large: { status: 413, description: 'The body exceeds the size limit' },
  unsupported_media_type: { status: 415, description: 'The body is not application/json' },
  not_found: { status: 404, description: 'No such endpoint' },
  method_not_allowed: { status: 405, description: 'The path does not support this method (see the Allow header)' },
  rate_limited: { status: 429, description: 'Rate limit exceeded; retry after Retry-After seconds' },
  service_unavailable: {
    status: 503,
    description:
      'The database primary cannot be reached (a failover is under way); whether a write that was in flight committed is unknown: retry after Retry-After with the same Idempotency-Key, which replays the answer if it did or does the work once if it did not',
  },
  internal_error: { status: 500, description: 'The server failed; retry with exponential backoff' },
  // auth
  unknown_api_key: { status: 401, description: 'No API key, or not one this service issued' },
  api_key_revoked: { status: 401, description: 'The API key was revoked' },
  agent_disabled: { status: 401, description: 'The agent of this API key is disabled' },
  owner_scope_denied: { status: 403, description: "The owner is outside this agent's owner_scope" },
  permission_denied: { status: 403, description: 'The agent lacks a permission; the code sent is permission_denied:<perm>' },
  // availability and proposals
  NO_SLOTS_AVAILABLE: { status: 409, description: 'No acceptable slot in the window; see reason_code and next_available' },
  WINDOW_TOO_NARROW: { status: 422, description: 'The window is shorter than the duration; see window_duration_minutes and required_duration_minutes' },
  PAST_TIME: { status: 422, description: 'The requested time starts in the past' },
  LOOKAHEAD_EXCEEDS_MAXIMUM: { status: 400, description: 'next_available_lookahead_hours exceeds the maximum (see maximum_lookahead_hours)' },
  INVALID_MEETING_CLASS: { status: 400, description: 'No meeting class of this name' },
  CALENDAR_NOT_FOUND: { status: 404, description: 'The owner has no calendar of this type' },
  CALENDAR_REAUTH_REQUIRED: { status: 409, description: "The owner's calendar needs to be connected again" },
  CALENDAR_UNAVAILABLE: { status: 503, description: "A connected calendar cannot be reached and its synced copy is too old to decide on; retry after Retry-After (docs/calendars.md)" },
  IDEMPOTENCY_IN_FLIGHT: { status: 409, description: 'A request with this Idempotency-Key is still running' },
  IDEMPOTENCY_CONFLICT: { status: 422, description: 'This Idempotency-Key was used with a different request' },
  // holds and bookings
  HOLD_NOT_FOUND: { status: 404, description: 'No such hold for this customer' },
  HOLD_EXPIRED: { status: 410, description: 'The hold passed its time to live' },
  HOLD_ALREADY_PROMOTED: { status: 409, description: 'The hold was already confirmed into a booking (see booking_id)' },
  HOLD_NOT_ACTIVE: { status: 409, description: 'The hold was released or preempted' },
  SLOT_OUTSIDE_HOLD: { status: 422, description: 'The slot is not inside the held window (see held_window)' },
  BOOKING_NOT_FOUND: { status: 404, description: 'No such booking for this customer' },
  BOOKING_NOT_ACTIVE: { status: 409, description: 'The booking is already cancelled or preempted' },
  WAITLIST_ENTRY_NOT_FOUND: { status: 404, description: 'No such waitlist entry of this agent' },
  PROPOSAL_NOT_FOUND: { status: 404, description: 'No such booking proposal for this customer' },
  PROPOSAL_NOT_PENDING: { status: 409, description: 'The proposal was already reviewed or withdrawn' },
  OUT_OF_OFFICE: { status: 409, description: 'The owner is out of office on a date the slot touches; see out_of_office and next_available (after the range)' },
  ARBITRATION_REJECTED: { status: 409, description: 'Arbitration refused the slot; see error.reason, alternatives and next_available' },
  PREEMPTION_NOT_CONFIRMED: { status: 409, description: 'Approving at this time would cancel the meetings in displaced[]; the owner must confirm them (dashboard only)' },
  // administration
  OWNER_NOT_FOUND: { status: 404, description: 'No such calendar owner for this customer' },
  OWNER_ALREADY_EXISTS: { status: 409, description: 'An owner with this email exists' },
  MEETING_CLASS_ALREADY_EXISTS: { status: 409, description: 'A meeting class of this name exists' },
  MEETING_CLASS_NOT_FOUND: { status: 404, description: 'No meeting class of this name' },
  AGENT_NOT_FOUND: { status: 404, description: 'No such agent for this customer' },
  API_KEY_NOT_FOUND: { status: 404, description: 'No such API key for this customer' },
  INVALID_TIME_ZONE: { status: 400, description: 'Not an IANA time zone' },
  INVALID_SCHEDULE_RULES: { status: 400, description: 'The schedule rules are inconsistent; error.details.fields names each issue' },
  // pools (docs/groups.md, "Pools")
  POOL_NOT_FOUND: { status: 404, description: 'No such pool for this customer (or none of its members is left)' },
  POOL_ALREADY_EXISTS: { status: 409, description: 'A pool of this name exists' },
  // approval policies (docs/api.md "Approval policies")
  APPROVAL_POLICY_NOT_FOUND: { status: 404, description: 'No such approval policy rule for this customer' },
  APPROVAL_POLICY_EXISTS: { status: 409, description: 'The owner already has this approval rule (same agent and meeting class)' },
  APPROVAL_REQUIRED: { status: 409, description: "An owner's approval policy covers this booking, and this kind of booking (a group) cannot wait for approval: book that owner alone" },
  // webhooks
  WEBHOOK_NOT_FOUND: { status: 404, description: 'No such webhook endpoint for this agent' },
  WEBHOOK_URL_REFUSED: { status: 400, description: 'The webhook URL is not http(s), or points at a private, loopback or link-local address (see error.reason)' },
  WEBHOOK_LIMIT_REACHED: { status: 409, description: 'The agent has the most webhook endpoints allowed' },
  // public scheduling
  attendee_limit_exceeded: { status: 400, description: 'More attendees than the meeting type allows (see attendee_limit)' },
  booking_limit_exceeded: { status: 409, description: 'The meeting type reached its booking limit for the period' },
  time_unavailable: { status: 409, description: 'The requested time is not one of the suggested times (or is past)' },
  invalid_alias: { status: 400, description: 'Not a valid link alias' },
  duplicate_alias: { status: 409, description: 'Another link uses this alias' },
  duplicate_public_meeting_type: { status: 409, description: 'The link has a meeting type with this slug' },
  invalid_public_preempt_policy: { status: 400, description: 'This preempt policy is not allowed for public meeting types' },
  invalid_domain: { status: 400, description: 'Not a valid domain name' },
  duplicate_domain: { status: 409, description: 'This domain is registered already' },
  domain_not_verified: { status: 422, description: 'The DNS TXT record was not found (see error.details.record_name and record_value)' },
  domain_in_use: { status: 409, description: 'Requester identities or audience members still use this domain' },
  duplicate_audience: { status: 409, description: 'An audience of this name exists' },
  audience_in_use: { status: 409, description: 'Meeting types or links still use this audience' },
  not_pending: { status: 409, description: 'The proposal or contact verification is no longer pending' },
  not_cancellable: { status: 409, description: 'Only a booked meeting that has not started can be cancelled by its requester' },
  not_movable: { status: 409, description: 'Only a booked meeting that has not started, of a meeting type still offered, can be asked to move' },
  move_pending: { status: 409, description: 'A request to move this meeting is already waiting for review' },
  waitlist_full: { status: 409, description: 'This email already waits in the most waitlist entries one link allows (5)' },
  offer_not_open: { status: 409, description: 'The waitlist offer is no longer held for you (it lapsed, was declined or was confirmed already)' },
} as const satisfies Record<string, { status: number; description: string }>;

/** A code of the catalogue (`permission_denied` stands for its family). */
export type ErrorCode = keyof typeof ERROR_CODES;

/** A code as sent: a catalogue code, or `permission_denied:<perm>`. */
export type DomainErrorCode = Exclude<ErrorCode, 'permission_denied'> | PermissionDeniedCode;
export type PermissionDeniedCode = `permission_denied:${Permission}`;

export function permissionDeniedCode(permission: Permission): PermissionDeniedCode {
  return `permission_denied:${permission}`;
}

/** Code to HTTP status, read from the catalogue. */
export const ERROR_STATUS = Object.fromEntries(Object.entries(ERROR_CODES).map(([code, e]) => [code, e.status])) as { [C in ErrorCode]: (typeof ERROR_CODES)[C]['status'] };

/** The catalogue entry of a code as sent (`permission_denied:<perm>` maps through its prefix); undefined for unknown codes. */
export function catalogueEntry(code: string): { status: number; description: string } | undefined {
  if (code.startsWith('permission_denied:')) return ERROR_CODES.permission_denied;
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ErrorCode] : undefined;
}

/** HTTP status of an error code; unknown codes are server faults. */
export function statusForCode(code: string): number {
  return catalogueEntry(code)?.status ?? 500;
}
