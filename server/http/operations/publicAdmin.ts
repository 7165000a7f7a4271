import { getConfig } from '@/server/config';
import * as allocations from '@/server/domain/publicScheduling/admin/allocations';
import * as audiences from '@/server/domain/publicScheduling/admin/audiences';
import * as domains from '@/server/domain/publicScheduling/admin/domains';
import * as links from '@/server/domain/publicScheduling/admin/links';
import * as types from '@/server/domain/publicScheduling/admin/meetingTypes';
import * as requesters from '@/server/domain/publicScheduling/admin/requesters';
import { defineOperation, ownerCall } from '../operation';
import * as S from '@/server/schemas/publicAdmin';

/** Public scheduling administration (docs/public-scheduling.md "Administration"), all under `manage_public_scheduling`. */
const admin = { tags: ['Public scheduling administration'], auth: 'api_key' as const, permission: 'manage_public_scheduling' as const };
const P = '/v1/public-scheduling';

// --- links (a link belongs to an owner: scope-checked like holds)

export const createLinkOp = defineOperation({
  ...admin,
  operationId: 'createPublicLink',
  method: 'POST',
  path: `${P}/links`,
  summary: 'Create a public scheduling link for an owner (its alias is the readable path)',
  body: S.LinkCreateBody,
  scope: { of: ({ body }) => ownerCall(body.owner_email) },
  success: { status: 201, description: 'The new link; `link_id` is the public_scheduling_boundary_id', schema: S.Link },
  errors: ['invalid_alias', 'duplicate_alias', 'OWNER_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, ownerEmail, body, now, baseUrl }) => ({
    body: links.linkView(await links.createLink(db, actor.customerId, ownerEmail, body, now, actor), baseUrl),
  }),
});

export const listLinksOp = defineOperation({
  ...admin,
  operationId: 'listPublicLinks',
  method: 'GET',
  path: `${P}/links`,
  summary: 'List live links (of one owner with `owner_email`; a user-scoped agent sees its owner only)',
  query: S.LinkListQuery,
  success: { status: 200, description: 'A page of links', schema: S.LinkList },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query, baseUrl }) => {
    const page = await links.listLinks(db, actor.customerId, actor, query);
    return { body: { links: page.items.map((r) => links.linkView(r, baseUrl)), next_cursor: page.next_cursor } };
  },
});

export const getLinkOp = defineOperation({
  ...admin,
  operationId: 'getPublicLink',
  method: 'GET',
  path: `${P}/links/{link_id}`,
  summary: 'Read a link',
  params: S.LinkParams,
  success: { status: 200, description: 'The link', schema: S.Link },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, params, baseUrl }) => ({ body: links.linkView(await links.getLink(db, actor.customerId, actor, params.link_id), baseUrl) }),
});

export const updateLinkOp = defineOperation({
  ...admin,
  operationId: 'updatePublicLink',
  method: 'PATCH',
  path: `${P}/links/{link_id}`,
  summary: "Change a link's alias, title or away redirect (a colleague's link requesters go to while the owner is out of office)",
  params: S.LinkParams,
  body: S.LinkPatchBody,
  success: { status: 200, description: 'The link', schema: S.Link },
  errors: ['not_found', 'invalid_alias', 'duplicate_alias', 'owner_scope_denied'],
  handler: async ({ db, actor, params, body, now, baseUrl }) => ({
    body: links.linkView(await links.updateLink(db, actor.customerId, actor, params.link_id, body, now), baseUrl),
  }),
});

export const deleteLinkOp = defineOperation({
  ...admin,
  operationId: 'deletePublicLink',
  method: 'DELETE',
  path: `${P}/links/{link_id}`,
  summary: 'Delete a link (it stops answering; its alias stays taken)',
  params: S.LinkParams,
  success: { status: 200, description: 'The deleted link, with `deleted_at`', schema: S.Link },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now, baseUrl }) => ({
    body: links.linkView(await links.deleteLink(db, actor.customerId, actor, params.link_id, now), baseUrl),
  }),
});

// --- meeting types

export const createMeetingTypeOp = defineOperation({
  ...admin,
  operationId: 'createPublicMeetingType',
  method: 'POST',
  path: `${P}/links/{link_id}/meeting-types`,
  summary: 'Offer a meeting type on a link',
  params: S.LinkParams,
  body: S.MeetingTypeCreateBody,
  success: { status: 201, description: 'The new meeting type', schema: S.MeetingType },
  errors: ['not_found', 'POOL_NOT_FOUND', 'INVALID_MEETING_CLASS', 'invalid_public_preempt_policy', 'duplicate_public_meeting_type', 'owner_scope_denied'],
  handler: async ({ db, actor, params, body, now }) => ({
    body: types.meetingTypeView(await types.createMeetingType(db, actor.customerId, actor, params.link_id, body, now)),
  }),
});

export const listMeetingTypesOp = defineOperation({
  ...admin,
  operationId: 'listPublicMeetingTypes',
  method: 'GET',
  path: `${P}/links/{link_id}/meeting-types`,
  summary: "List a link's meeting types (all of them, whatever their visibility or state)",
  params: S.LinkParams,
  query: S.ListQuery,
  success: { status: 200, description: 'A page of meeting types', schema: S.MeetingTypeList },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, params, query }) => {
    const page = await types.listLinkMeetingTypes(db, actor.customerId, actor, params.link_id, query);
    return { body: { meeting_types: page.items.map(types.meetingTypeView), next_cursor: page.next_cursor } };
  },
});

export const getMeetingTypeOp = defineOperation({
  ...admin,
  operationId: 'getPublicMeetingType',
  method: 'GET',
  path: `${P}/links/{link_id}/meeting-types/{slug}`,
  summary: 'Read a meeting type',
  params: S.MeetingTypeParams,
  success: { status: 200, description: 'The meeting type', schema: S.MeetingType },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, params }) => ({
    body: types.meetingTypeView(await types.getMeetingType(db, actor.customerId, actor, params.link_id, params.slug)),
  }),
});

export const updateMeetingTypeOp = defineOperation({
  ...admin,
  operationId: 'updatePublicMeetingType',
  method: 'PATCH',
  path: `${P}/links/{link_id}/meeting-types/{slug}`,
  summary: 'Change any field of a meeting type (checked as a whole, as on creation)',
  params: S.MeetingTypeParams,
  body: S.MeetingTypePatchBody,
  success: { status: 200, description: 'The meeting type', schema: S.MeetingType },
  errors: ['not_found', 'POOL_NOT_FOUND', 'INVALID_MEETING_CLASS', 'invalid_public_preempt_policy', 'duplicate_public_meeting_type', 'owner_scope_denied'],
  handler: async ({ db, actor, params, body, now }) => ({
    body: types.meetingTypeView(await types.updateMeetingType(db, actor.customerId, actor, params.link_id, params.slug, body, now)),
  }),
});

// --- verified domains (customer-wide: org:* agents only)

export const createDomainOp = defineOperation({
  ...admin,
  operationId: 'createVerifiedDomain',
  method: 'POST',
  path: `${P}/domains`,
  summary: 'Start verifying a domain: publish the returned TXT challenge, then call verify',
  body: S.DomainCreateBody,
  success: { status: 201, description: 'The pending domain and its DNS challenge', schema: S.Domain },
  errors: ['invalid_domain', 'duplicate_domain', 'owner_scope_denied'],
  handler: async ({ db, actor, body, now }) => ({ body: domains.domainView(await domains.createDomain(db, actor.customerId, actor, body, now)) }),
});

export const listDomainsOp = defineOperation({
  ...admin,
  operationId: 'listVerifiedDomains',
  method: 'GET',
  path: `${P}/domains`,
  summary: "List the customer's domains, pending and verified",
  query: S.ListQuery,
  success: { status: 200, description: 'A page of domains', schema: S.DomainList },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query }) => {
    const page = await domains.listDomains(db, actor.customerId, actor, query);
    return { body: { domains: page.items.map(domains.domainView), next_cursor: page.next_cursor } };
  },
});

export const verifyDomainOp = defineOperation({
  ...admin,
  operationId: 'verifyDomain',
  method: 'POST',
  path: `${P}/domains/{domain_id}/verify`,
  summary: 'Look the DNS TXT challenge up now; verified when a record equals it exactly',
  params: S.DomainParams,
  success: { status: 200, description: 'The domain, `status: verified`', schema: S.Domain },
  errors: ['not_found', 'domain_not_verified', 'owner_scope_denied'],
  transaction: false, // the DNS look-up runs outside any transaction
  handler: async ({ db, actor, params, now }) => ({
    body: domains.domainView(await domains.verifyDomain(db, actor.customerId, actor, params.domain_id, getConfig().dnsResolver, now)),
  }),
});

export const deleteDomainOp = defineOperation({
  ...admin,
  operationId: 'deleteVerifiedDomain',
  method: 'DELETE',
  path: `${P}/domains/{domain_id}`,
  summary: 'Delete a domain no requester identity or audience member uses',
  params: S.DomainParams,
  success: { status: 200, description: 'The deleted domain', schema: S.Domain },
  errors: ['not_found', 'domain_in_use', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: domains.domainView(await domains.deleteDomain(db, actor.customerId, actor, params.domain_id, now)) }),
});

// --- requester identities and credentials (customer-wide)

export const createIdentityOp = defineOperation({
  ...admin,
  operationId: 'createRequesterIdentity',
  method: 'POST',
  path: `${P}/requester-identities`,
  summary: 'Register a requester by email (an email already registered answers its identity with 200)',
  body: S.IdentityCreateBody,
  success: { status: 201, description: 'The new identity', schema: S.Identity, also: { status: 200, description: 'The email was already registered: its identity' } },
  errors: ['domain_not_verified', 'owner_scope_denied'],
  handler: async ({ db, actor, body, now }) => {
    const r = await requesters.createIdentity(db, actor.customerId, actor, body, now);
    return { status: r.created ? 201 : 200, body: requesters.identityView(r) };
  },
});

export const listIdentitiesOp = defineOperation({
  ...admin,
  operationId: 'listRequesterIdentities',
  method: 'GET',
  path: `${P}/requester-identities`,
  summary: 'List requester identities',
  query: S.ListQuery,
  success: { status: 200, description: 'A page of identities', schema: S.IdentityList },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query }) => {
    const page = await requesters.listIdentities(db, actor.customerId, actor, query);
    return { body: { requester_identities: page.items.map(requesters.identityView), next_cursor: page.next_cursor } };
  },
});

export const mintCredentialOp = defineOperation({
  ...admin,
  operationId: 'mintRequesterCredential',
  method: 'POST',
  path: `${P}/requester-identities/{id}/credentials`,
  summary: 'Issue an rc_ requester credential (shown once)',
  params: S.IdParams,
  idempotency: { redact: ['requester_credential'] },
  success: { status: 201, description: 'The credential; `requester_credential` appears only in this response', schema: S.MintedCredential },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await requesters.mintCredential(db, actor.customerId, actor, params.id, now) }),
});

export const revokeCredentialOp = defineOperation({
  ...admin,
  operationId: 'revokeRequesterCredential',
  method: 'DELETE',
  path: `${P}/requester-identities/{id}/credentials/{credential_id}`,
  summary: 'Revoke a requester credential (effective immediately)',
  params: S.CredentialParams,
  success: { status: 200, description: 'The revoked credential', schema: S.RevokedCredential },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({
    body: await requesters.revokeCredential(db, actor.customerId, actor, params.id, params.credential_id, now),
  }),
});

// --- audiences (customer-wide)

export const createAudienceOp = defineOperation({
  ...admin,
  operationId: 'createAudience',
  method: 'POST',
  path: `${P}/audiences`,
  summary: 'Create an audience of emails and verified domains',
  body: S.AudienceCreateBody,
  success: { status: 201, description: 'The new audience', schema: S.Audience },
  errors: ['duplicate_audience', 'invalid_domain', 'not_found', 'domain_not_verified', 'owner_scope_denied'],
  handler: async ({ db, actor, body, now }) => ({ body: audiences.audienceView(await audiences.createAudience(db, actor.customerId, actor, body, now)) }),
});

export const listAudiencesOp = defineOperation({
  ...admin,
  operationId: 'listAudiences',
  method: 'GET',
  path: `${P}/audiences`,
  summary: 'List audiences with their members',
  query: S.ListQuery,
  success: { status: 200, description: 'A page of audiences', schema: S.AudienceList },
  errors: ['owner_scope_denied'],
  handler: async ({ db, actor, query }) => {
    const page = await audiences.listAudiences(db, actor.customerId, actor, query);
    return { body: { audiences: page.items.map(audiences.audienceView), next_cursor: page.next_cursor } };
  },
});

export const updateAudienceOp = defineOperation({
  ...admin,
  operationId: 'updateAudience',
  method: 'PATCH',
  path: `${P}/audiences/{id}`,
  summary: 'Rename an audience or replace its members',
  params: S.IdParams,
  body: S.AudiencePatchBody,
  success: { status: 200, description: 'The audience', schema: S.Audience },
  errors: ['not_found', 'duplicate_audience', 'invalid_domain', 'domain_not_verified', 'owner_scope_denied'],
  handler: async ({ db, actor, params, body, now }) => ({
    body: audiences.audienceView(await audiences.updateAudience(db, actor.customerId, actor, params.id, body, now)),
  }),
});

export const deleteAudienceOp = defineOperation({
  ...admin,
  operationId: 'deleteAudience',
  method: 'DELETE',
  path: `${P}/audiences/{id}`,
  summary: 'Delete an audience no meeting type or allocation names (409 audience_in_use otherwise)',
  params: S.IdParams,
  success: { status: 200, description: 'The deleted audience', schema: S.Audience },
  errors: ['not_found', 'audience_in_use', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: audiences.audienceView(await audiences.deleteAudience(db, actor.customerId, actor, params.id, now)) }),
});

// --- allocations (on a link: scope-checked by its owner)

export const createAllocationOp = defineOperation({
  ...admin,
  operationId: 'createAllocation',
  method: 'POST',
  path: `${P}/allocations`,
  summary: "Cap bookings through a meeting type per owner-local day, week or month (optionally for one audience)",
  body: S.AllocationCreateBody,
  success: { status: 201, description: 'The new allocation', schema: S.Allocation },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, body, now }) => ({
    body: allocations.allocationView(await allocations.createAllocation(db, actor.customerId, actor, body, now)),
  }),
});

export const listAllocationsOp = defineOperation({
  ...admin,
  operationId: 'listAllocations',
  method: 'GET',
  path: `${P}/allocations`,
  summary: 'List allocations (of one link with `link_id`)',
  query: S.AllocationListQuery,
  success: { status: 200, description: 'A page of allocations', schema: S.AllocationList },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, query }) => {
    const page = await allocations.listAllocations(db, actor.customerId, actor, query);
    return { body: { allocations: page.items.map(allocations.allocationView), next_cursor: page.next_cursor } };
  },
});

export const deleteAllocationOp = defineOperation({
  ...admin,
  operationId: 'deleteAllocation',
  method: 'DELETE',
  path: `${P}/allocations/{id}`,
  summary: 'Delete an allocation',
  params: S.IdParams,
  success: { status: 200, description: 'The deleted allocation', schema: S.Allocation },
  errors: ['not_found', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: allocations.allocationView(await allocations.deleteAllocation(db, actor.customerId, actor, params.id, now)) }),
});
