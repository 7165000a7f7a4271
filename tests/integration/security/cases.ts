import { uniqueEmail } from '../../helpers/app';
import { newId } from '@/server/domain/ids';
import type { World } from './world';

/**
 * Minimal valid requests per operationId, addressed at world A's objects.
 * Tables, not guesses: an API-key operation missing from a table FAILS the
 * test that uses it, so a new endpoint must be added here (and thought about).
 */
export type Probe = { path: string; body?: unknown };
export type Case = ((w: World) => Probe) | { exempt: string };

const q = encodeURIComponent;
const at = (w: World, from: string, to: string) => ({ start: w.day.at(from), end: w.day.at(to) });
const P = '/v1/public-scheduling';

/**
 * Owner scope: what a `user:<other owner>` agent (every permission) sends to
 * act on world A's owner or that owner's objects; it must get 403
 * owner_scope_denied. Customer-wide administration (domains, requester
 * identities, audiences) is for `org:*` agents only, so it is denied too.
 * `exempt`: the operation acts on no owner (the reason is the review note).
 */
export const OWNER_SCOPE_CASES: Record<string, Case> = {
  createOwner: () => ({ path: '/v1/owners', body: { email: uniqueEmail('scoped'), time_zone: 'UTC' } }),
  getScheduleRules: (w) => ({ path: `/v1/schedule-rules?owner_email=${q(w.ownerEmail)}` }),
  putScheduleRules: (w) => ({ path: '/v1/schedule-rules', body: { owner_email: w.ownerEmail, working_hours: null } }),
  createMeetingClass: { exempt: 'meeting classes are customer-wide settings under manage_customer (docs/api.md), not an owner' },
  listMeetingClasses: { exempt: 'meeting classes are customer-wide settings (names and priorities), not an owner' },
  getMeetingClass: { exempt: 'meeting classes are customer-wide settings (names and priorities), not an owner' },
  updateMeetingClass: { exempt: 'meeting classes are customer-wide settings under manage_customer (docs/api.md), not an owner' },
  listTimeZones: { exempt: 'the IANA zone names this server accepts: reference data about no owner' },
  drainNotifications: { exempt: "the calling agent's own queue" },
  listCalendars: (w) => ({ path: `/v1/calendars?owner_email=${q(w.ownerEmail)}` }),
  connectCaldavCalendar: (w) => ({ path: '/v1/calendars/caldav', body: { owner_email: w.ownerEmail, server_url: 'https://caldav.example.com/', username: 'u', password: 'p' } }),
  updateCalendar: (w) => ({ path: `/v1/calendars/${w.calendarId}`, body: { owner_email: w.ownerEmail, check_conflicts: true } }),
  disconnectCalendar: (w) => ({ path: `/v1/calendars/${w.calendarId}?owner_email=${q(w.ownerEmail)}` }),
  createWebhook: { exempt: "the calling agent's own endpoints: they receive only what the agent can already read (docs/webhooks.md)" },
  listWebhooks: { exempt: "the calling agent's own endpoints" },
  getWebhook: { exempt: "the calling agent's own endpoints" },
  updateWebhook: { exempt: "the calling agent's own endpoints" },
  deleteWebhook: { exempt: "the calling agent's own endpoints" },
  testWebhook: { exempt: "the calling agent's own endpoints" },
  listWebhookDeliveries: { exempt: "the calling agent's own endpoints" },
  getCurrentAgent: { exempt: 'the calling agent itself' },
  listAgents: { exempt: 'agents are customer-wide, under manage_agents, not an owner' },
  listHolds: (w) => ({ path: `/v1/holds?owner_email=${q(w.ownerEmail)}` }),
  joinWaitlist: (w) => ({ path: '/v1/waitlist', body: { owner_email: w.ownerEmail, meeting_class: 'internal', duration_minutes: 30, window_start: w.day.at('13:00'), window_end: w.day.at('14:00') } }),
  listWaitlist: { exempt: "the calling agent's own entries (an owner out of its scope is left out)" },
  getWaitlistEntry: { exempt: "the calling agent's own entries: another agent's entry answers 404 WAITLIST_ENTRY_NOT_FOUND" },
  leaveWaitlist: { exempt: "the calling agent's own entries: another agent's entry answers 404 WAITLIST_ENTRY_NOT_FOUND" },
  listBookings: (w) => ({ path: `/v1/bookings?owner_email=${q(w.ownerEmail)}` }),
  createAgent: () => ({ path: '/v1/agents', body: { name: 'escalated', owner_scope: 'org:*', permissions: [] } }),
  updateAgent: (w) => ({ path: `/v1/agents/${w.victimAgentId}`, body: { name: 'renamed by a scoped agent' } }),
  mintApiKey: (w) => ({ path: `/v1/agents/${w.victimAgentId}/keys`, body: {} }),
  revokeApiKey: (w) => ({ path: `/v1/agents/${w.victimAgentId}/keys/${w.victimKeyId}` }),
  searchAvailability: (w) => ({ path: '/v1/availability/search', body: { owner_email: w.ownerEmail, meeting_class: 'external', duration_minutes: 30, window: at(w, '13:00', '15:00') } }),
  createHold: (w) => ({ path: '/v1/holds', body: { owner_email: w.ownerEmail, meeting_class: 'external', hold_scope: 'candidate', candidate: at(w, '14:00', '14:30') } }),
  getHold: (w) => ({ path: `/v1/holds/${w.holdId}` }),
  releaseHold: (w) => ({ path: `/v1/holds/${w.holdId}` }),
  confirmHold: (w) => ({ path: `/v1/bookings/${w.holdId}/confirm`, body: at(w, '11:00', '11:30') }),
  createBooking: (w) => ({ path: '/v1/bookings', body: { owner_email: w.ownerEmail, meeting_class: 'external', ...at(w, '15:00', '15:30') } }),
  getBooking: (w) => ({ path: `/v1/bookings/${w.bookingId}` }),
  getBookingReminders: (w) => ({ path: `/v1/bookings/${w.bookingId}/reminders` }),
  cancelBooking: (w) => ({ path: `/v1/bookings/${w.bookingId}/cancel`, body: {} }),
  listApprovalPolicies: (w) => ({ path: `/v1/approval-policies?owner_email=${q(w.ownerEmail)}` }),
  createApprovalPolicy: (w) => ({ path: '/v1/approval-policies', body: { owner_email: w.ownerEmail, meeting_class: 'external' } }),
  deleteApprovalPolicy: (w) => ({ path: `/v1/approval-policies/${w.approvalPolicyId}` }),
  extendHold: (w) => ({ path: `/v1/holds/${w.holdId}/extend`, body: { ttl_seconds: 600 } }),
  updateBooking: (w) => ({ path: `/v1/bookings/${w.bookingId}`, body: { title: 'renamed by a scoped agent' } }),
  rescheduleBooking: (w) => ({ path: `/v1/bookings/${w.bookingId}/reschedule`, body: at(w, '16:00', '16:30') }),
  listPools: { exempt: 'a user-scoped agent lists only the pools all of whose members are its owner (docs/groups.md "Pools")' },
  createPool: (w) => ({ path: '/v1/pools', body: { name: 'scoped', members: [{ owner_email: w.ownerEmail, weight: 1 }] } }),
  getPool: (w) => ({ path: `/v1/pools/${w.poolId}` }),
  updatePool: (w) => ({ path: `/v1/pools/${w.poolId}`, body: { name: 'renamed by a scoped agent' } }),
  deletePool: (w) => ({ path: `/v1/pools/${w.poolId}` }),
  getPoolAssignments: (w) => ({ path: `/v1/pools/${w.poolId}/assignments` }),
  evaluateArbitration: (w) => ({ path: '/v1/arbitration/evaluate', body: { owner_email: w.ownerEmail, meeting_class: 'external', ...at(w, '15:00', '15:30') } }),
  queryAuditLog: (w) => ({ path: `/v1/audit-log?owner_email=${q(w.ownerEmail)}` }),
  createBookingProposal: (w) => ({
    path: '/v1/booking-proposals',
    body: { owner_email: w.ownerEmail, meeting_class: 'external', duration_minutes: 30, window: at(w, '13:00', '16:00'), attendees: [] },
  }),
  getBookingProposal: (w) => ({ path: `/v1/booking-proposals/${w.proposalId}` }),
  createPublicLink: (w) => ({ path: `${P}/links`, body: { owner_email: w.ownerEmail, alias: `scoped-${newId().slice(-10)}` } }),
  listPublicLinks: (w) => ({ path: `${P}/links?owner_email=${q(w.ownerEmail)}` }),
  getPublicLink: (w) => ({ path: `${P}/links/${w.linkId}` }),
  updatePublicLink: (w) => ({ path: `${P}/links/${w.linkId}`, body: { title: 'renamed' } }),
  deletePublicLink: (w) => ({ path: `${P}/links/${w.linkId}` }),
  createPublicMeetingType: (w) => ({ path: `${P}/links/${w.linkId}/meeting-types`, body: { slug: 'scoped', title: 'Scoped', duration_minutes: [30], meeting_class: 'external' } }),
  listPublicMeetingTypes: (w) => ({ path: `${P}/links/${w.linkId}/meeting-types` }),
  getPublicMeetingType: (w) => ({ path: `${P}/links/${w.linkId}/meeting-types/${w.slug}` }),
  updatePublicMeetingType: (w) => ({ path: `${P}/links/${w.linkId}/meeting-types/${w.slug}`, body: { title: 'renamed' } }),
  createVerifiedDomain: () => ({ path: `${P}/domains`, body: { domain: `scoped-${newId().slice(-10)}.example.com` } }),
  listVerifiedDomains: () => ({ path: `${P}/domains` }),
  verifyDomain: (w) => ({ path: `${P}/domains/${w.domainId}/verify` }),
  deleteVerifiedDomain: (w) => ({ path: `${P}/domains/${w.domainId}` }),
  createRequesterIdentity: () => ({ path: `${P}/requester-identities`, body: { email: uniqueEmail('scoped-requester') } }),
  listRequesterIdentities: () => ({ path: `${P}/requester-identities` }),
  mintRequesterCredential: (w) => ({ path: `${P}/requester-identities/${w.identityId}/credentials` }),
  revokeRequesterCredential: (w) => ({ path: `${P}/requester-identities/${w.identityId}/credentials/${w.credentialId}` }),
  createAudience: () => ({ path: `${P}/audiences`, body: { name: `scoped-${newId().slice(-10)}`, members: [] } }),
  listAudiences: () => ({ path: `${P}/audiences` }),
  updateAudience: (w) => ({ path: `${P}/audiences/${w.audienceId}`, body: { name: `renamed-${newId().slice(-8)}` } }),
  deleteAudience: (w) => ({ path: `${P}/audiences/${w.audienceId}` }),
  createAllocation: (w) => ({ path: `${P}/allocations`, body: { link_id: w.linkId, slug: w.slug, limit: 3, period: 'day' } }),
  listAllocations: (w) => ({ path: `${P}/allocations?link_id=${q(w.linkId)}` }),
  deleteAllocation: (w) => ({ path: `${P}/allocations/${w.allocationId}` }),
};

/**
 * Cross-customer isolation: every /v1 operation whose path has `{...}`,
 * addressed with customer A's ids (and a body valid enough to pass
 * validation, so the lookup is what answers). Customer B's admin must get 404.
 */
export const ISOLATION_CASES: Record<string, (a: World) => Probe> = {
  updateAgent: (a) => ({ path: `/v1/agents/${a.victimAgentId}`, body: { disabled: true } }),
  getMeetingClass: (a) => ({ path: `/v1/meeting-classes/${a.className}` }),
  updateMeetingClass: (a) => ({ path: `/v1/meeting-classes/${a.className}`, body: { on_preempted: 'hold_nearest' } }),
  updateCalendar: (a) => ({ path: `/v1/calendars/${a.calendarId}`, body: { owner_email: a.ownerEmail, check_conflicts: true } }),
  disconnectCalendar: (a) => ({ path: `/v1/calendars/${a.calendarId}?owner_email=${q(a.ownerEmail)}` }),
  getWebhook: (a) => ({ path: `/v1/webhooks/${a.webhookId}` }),
  updateWebhook: (a) => ({ path: `/v1/webhooks/${a.webhookId}`, body: { description: 'foreign' } }),
  deleteWebhook: (a) => ({ path: `/v1/webhooks/${a.webhookId}` }),
  testWebhook: (a) => ({ path: `/v1/webhooks/${a.webhookId}/test` }),
  listWebhookDeliveries: (a) => ({ path: `/v1/webhooks/${a.webhookId}/deliveries` }),
  mintApiKey: (a) => ({ path: `/v1/agents/${a.victimAgentId}/keys`, body: {} }),
  revokeApiKey: (a) => ({ path: `/v1/agents/${a.victimAgentId}/keys/${a.victimKeyId}` }),
  getHold: (a) => ({ path: `/v1/holds/${a.holdId}` }),
  releaseHold: (a) => ({ path: `/v1/holds/${a.holdId}` }),
  confirmHold: (a) => ({ path: `/v1/bookings/${a.holdId}/confirm`, body: at(a, '11:00', '11:30') }),
  getBooking: (a) => ({ path: `/v1/bookings/${a.bookingId}` }),
  getWaitlistEntry: (a) => ({ path: `/v1/waitlist/${a.waitlistId}` }),
  leaveWaitlist: (a) => ({ path: `/v1/waitlist/${a.waitlistId}` }),
  getBookingReminders: (a) => ({ path: `/v1/bookings/${a.bookingId}/reminders` }),
  deleteApprovalPolicy: (a) => ({ path: `/v1/approval-policies/${a.approvalPolicyId}` }),
  cancelBooking: (a) => ({ path: `/v1/bookings/${a.bookingId}/cancel`, body: { reason: 'foreign' } }),
  extendHold: (a) => ({ path: `/v1/holds/${a.holdId}/extend`, body: { ttl_seconds: 600 } }),
  updateBooking: (a) => ({ path: `/v1/bookings/${a.bookingId}`, body: { title: 'foreign' } }),
  rescheduleBooking: (a) => ({ path: `/v1/bookings/${a.bookingId}/reschedule`, body: at(a, '16:00', '16:30') }),
  getPool: (a) => ({ path: `/v1/pools/${a.poolId}` }),
  updatePool: (a) => ({ path: `/v1/pools/${a.poolId}`, body: { name: 'foreign' } }),
  deletePool: (a) => ({ path: `/v1/pools/${a.poolId}` }),
  getPoolAssignments: (a) => ({ path: `/v1/pools/${a.poolId}/assignments` }),
  getBookingProposal: (a) => ({ path: `/v1/booking-proposals/${a.proposalId}` }),
  getPublicLink: (a) => ({ path: `${P}/links/${a.linkId}` }),
  updatePublicLink: (a) => ({ path: `${P}/links/${a.linkId}`, body: { title: 'foreign' } }),
  deletePublicLink: (a) => ({ path: `${P}/links/${a.linkId}` }),
  createPublicMeetingType: (a) => ({ path: `${P}/links/${a.linkId}/meeting-types`, body: { slug: 'foreign', title: 'Foreign', duration_minutes: [30], meeting_class: 'external' } }),
  listPublicMeetingTypes: (a) => ({ path: `${P}/links/${a.linkId}/meeting-types` }),
  getPublicMeetingType: (a) => ({ path: `${P}/links/${a.linkId}/meeting-types/${a.slug}` }),
  updatePublicMeetingType: (a) => ({ path: `${P}/links/${a.linkId}/meeting-types/${a.slug}`, body: { title: 'foreign' } }),
  verifyDomain: (a) => ({ path: `${P}/domains/${a.domainId}/verify` }),
  deleteVerifiedDomain: (a) => ({ path: `${P}/domains/${a.domainId}` }),
  mintRequesterCredential: (a) => ({ path: `${P}/requester-identities/${a.identityId}/credentials` }),
  revokeRequesterCredential: (a) => ({ path: `${P}/requester-identities/${a.identityId}/credentials/${a.credentialId}` }),
  updateAudience: (a) => ({ path: `${P}/audiences/${a.audienceId}`, body: { members: [] } }),
  deleteAudience: (a) => ({ path: `${P}/audiences/${a.audienceId}` }),
  deleteAllocation: (a) => ({ path: `${P}/allocations/${a.allocationId}` }),
};

/** A's ids in a query or body (not path): B must get 404 too. */
export const ISOLATION_EXTRA: Record<string, (a: World) => Probe & { method: string }> = {
  'listAllocations?link_id': (a) => ({ method: 'GET', path: `${P}/allocations?link_id=${q(a.linkId)}` }),
  'createAllocation link_id': (a) => ({ method: 'POST', path: `${P}/allocations`, body: { link_id: a.linkId, slug: a.slug, limit: 1, period: 'day' } }),
};

/**
 * API-key operations that need no permission, on purpose: reads of the
 * caller's own objects (scope-checked) and its own queue. Anything else
 * without `permission` fails the permission test.
 */
export const PERMISSION_FREE: Record<string, string> = {
  getOpenApiDocument: 'the API description is public',
  getScheduleRules: 'docs/api.md: GET schedule rules needs only a key whose scope covers the owner',
  drainNotifications: "docs/api.md: notifications need only a key (the agent's own queue)",
  listCalendars: 'docs/calendars.md: like schedule rules, an owner in scope may read its calendars and their status',
  createWebhook: "docs/webhooks.md: an agent manages its own endpoints, which receive only what the agent can already read",
  listWebhooks: "docs/webhooks.md: the agent's own endpoints",
  getWebhook: "docs/webhooks.md: the agent's own endpoints",
  updateWebhook: "docs/webhooks.md: the agent's own endpoints",
  deleteWebhook: "docs/webhooks.md: the agent's own endpoints",
  testWebhook: "docs/webhooks.md: the agent's own endpoints",
  listWebhookDeliveries: "docs/webhooks.md: the agent's own endpoints",
  getCurrentAgent: 'the calling agent reads itself (id, scope, permissions, its key, its budgets)',
  listTimeZones: 'docs/api.md: the IANA zone names this server accepts, reference data any key may read',
};
