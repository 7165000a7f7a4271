/**
 * Public scheduling administration: links, meeting types, verified domains,
 * requester identities and credentials, audiences, allocations.
 *
 * Read helpers for the requester side (no scope checks: the caller is a
 * public request; apply visibility, enabled and published yourself):
 *
 *   findLinkByIdOrAlias(db, idOrAlias): Promise<{ link, owner } | null>
 *       a live (not deleted) link by its UUID id or alias (alias matched lower-cased), with its owner row.
 *   findMeetingType(db, linkId, slug): Promise<{ type, meetingClass, audienceName } | null>
 *       the type row (any state), its meeting class row, its audience's name (visibility `audience`).
 *   listMeetingTypes(db, linkId): Promise<{ type, meetingClass, audienceName }[]>
 *       every type of the link (any state), oldest first.
 *   audienceMembership(db, audienceId, { email }): Promise<boolean>
 *       email is a member, or its domain is a verified-domain member.
 *   effectivePreemptPolicy(type, meetingClass): 'never' | 'preempt_lower'
 *       what bookings through the type run with (never looser than the class).
 *   checkAllocation(db, { meetingTypeId, audienceIds, ownerTimeZone, at, now? }): Promise<void>
 *       throws 409 booking_limit_exceeded; call inside the owner-locked approval
 *       transaction before inserting the booking, whose claim must carry
 *       source 'public' and proposal_id (that is what is counted).
 *   linkUrl(baseUrl, alias): string
 */
export { findLinkByIdOrAlias, type LinkRecord } from './links';
export { findMeetingType, listMeetingTypes, effectivePreemptPolicy, type MeetingTypeRecord } from './meetingTypes';
export { audienceMembership } from './audiences';
export { checkAllocation, periodBounds } from './allocations';

export * as links from './links';
export * as meetingTypes from './meetingTypes';
export * as domains from './domains';
export * as requesters from './requesters';
export * as audiences from './audiences';
export * as allocations from './allocations';
