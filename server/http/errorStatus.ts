/**
 * The one table from error codes to HTTP statuses, used by the REST wrapper,
 * the tRPC error formatter and the OpenAPI generator.
 *
 * Conventions: protocol-level codes (auth, validation, transport, public
 * scheduling) are lowercase; agent-facing domain codes are UPPER_SNAKE, as
 * SPEC.md names them.
 */
export const ERROR_STATUS = {
  // transport and validation
  invalid_request: 400,
  invalid_json: 400,
  payload_too_large: 413,
  unsupported_media_type: 415,
  not_found: 404,
  method_not_allowed: 405,
  rate_limited: 429,
  internal_error: 500,
  // auth (SPEC.md "Auth errors"); `permission_denied:<perm>` maps through its prefix
  unknown_api_key: 401,
  api_key_revoked: 401,
  agent_disabled: 401,
  owner_scope_denied: 403,
  permission_denied: 403,
  // availability and proposals
  NO_SLOTS_AVAILABLE: 409,
  WINDOW_TOO_NARROW: 422,
  PAST_TIME: 422,
  LOOKAHEAD_EXCEEDS_MAXIMUM: 400,
  INVALID_MEETING_CLASS: 400,
  CALENDAR_NOT_FOUND: 404,
  CALENDAR_REAUTH_REQUIRED: 409,
  CALENDAR_UNAVAILABLE: 503, // with Retry-After (docs/calendars.md)
  IDEMPOTENCY_IN_FLIGHT: 409,
  IDEMPOTENCY_CONFLICT: 422,
  // holds and bookings
  HOLD_NOT_FOUND: 404,
  HOLD_EXPIRED: 410,
  HOLD_ALREADY_PROMOTED: 409,
  HOLD_NOT_ACTIVE: 409,
  SLOT_OUTSIDE_HOLD: 422,
  BOOKING_NOT_FOUND: 404,
  BOOKING_NOT_ACTIVE: 409,
  PROPOSAL_NOT_FOUND: 404,
  PROPOSAL_NOT_PENDING: 409,
  ARBITRATION_REJECTED: 409,
  // administration
  OWNER_NOT_FOUND: 404,
  OWNER_ALREADY_EXISTS: 409,
  MEETING_CLASS_ALREADY_EXISTS: 409,
  AGENT_NOT_FOUND: 404,
  API_KEY_NOT_FOUND: 404,
  INVALID_TIME_ZONE: 400,
  INVALID_SCHEDULE_RULES: 400,
  // public scheduling (SPEC.md "Public scheduling errors")
  attendee_limit_exceeded: 400,
  booking_limit_exceeded: 409,
  time_unavailable: 409,
  invalid_alias: 400,
  duplicate_alias: 409,
  duplicate_public_meeting_type: 409,
  invalid_public_preempt_policy: 400,
  invalid_domain: 400,
  duplicate_domain: 409,
  domain_not_verified: 422,
  domain_in_use: 409,
  duplicate_audience: 409,
  audience_in_use: 409,
  not_pending: 409,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** HTTP status of an error code; unknown codes are server faults. */
export function statusForCode(code: string): number {
  if (code.startsWith('permission_denied:')) return ERROR_STATUS.permission_denied;
  return (ERROR_STATUS as Record<string, number>)[code] ?? 500;
}
