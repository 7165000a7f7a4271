import { agentView, createAgent, describeSelf, listAgents, mintApiKey, revokeApiKey, updateAgent } from '@/server/domain/agentService';
import { RATE_LIMITS } from '@/server/rateLimit';
import { createMeetingClass, listMeetingClasses, meetingClassNamed, meetingClassView, updateMeetingClass } from '@/server/domain/meetingClassService';
import { createOwner, getOwner, ownersInScope, ownerView, putScheduleRules, rulesView } from '@/server/domain/ownerService';
import { normalizeEmail } from '@/server/domain/access';
import { DomainError } from '@/server/domain/errors';
import { supportedTimeZones } from '@/server/domain/scheduling';
import { defineOperation, ownerCall } from '../operation';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/admin';

export const createOwnerOp = defineOperation({
  operationId: 'createOwner',
  method: 'POST',
  path: '/v1/owners',
  summary: 'Create a calendar owner (with an internal primary calendar), optionally with its schedule rules',
  tags: ['Administration'],
  auth: 'api_key',
  permission: 'manage_customer',
  body: S.OwnerCreateBody,
  scope: { of: ({ body }) => ownerCall(body.email) },
  success: { status: 201, description: 'The new owner', schema: S.Owner },
  errors: ['INVALID_TIME_ZONE', 'OWNER_ALREADY_EXISTS', 'INVALID_SCHEDULE_RULES', 'owner_scope_denied'],
  handler: async ({ db, actor, body, now }) => ({ body: ownerView(await createOwner(db, actor.customerId, body, actor, now)) }),
});

export const getScheduleRulesOp = defineOperation({
  operationId: 'getScheduleRules',
  method: 'GET',
  path: '/v1/schedule-rules',
  summary: "Read an owner's working hours, working days, hard blocks and daily limit",
  tags: ['Administration'],
  auth: 'api_key',
  query: S.RulesQuery,
  scope: { of: ({ query }) => ownerCall(query.owner_email) },
  success: { status: 200, description: 'The rules', schema: S.Rules },
  errors: ['OWNER_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, ownerEmail }) => ({ body: rulesView(await getOwner(db, actor.customerId, ownerEmail)) }),
});

/**
 * PUT /v1/schedule-rules names its owner in the query, as GET does, or in the body (docs/api.md
 * "Schedule rules"); both only when they agree.
 */
function rulesOwner(inQuery: string | undefined, inBody: string | undefined): string | undefined {
  if (inQuery !== undefined && inBody !== undefined && normalizeEmail(inQuery) !== normalizeEmail(inBody)) {
    throw new DomainError('invalid_request', 'owner_email is given twice, in the query and in the body, naming different owners; give it once', {
      fields: [{ field: 'owner_email', message: 'query and body name different owners' }],
    });
  }
  return inQuery ?? inBody;
}

export const putScheduleRulesOp = defineOperation({
  operationId: 'putScheduleRules',
  method: 'PUT',
  path: '/v1/schedule-rules',
  summary: "Replace an owner's schedule rules",
  tags: ['Administration'],
  auth: 'api_key',
  permission: 'manage_customer',
  query: S.RulesQuery,
  body: S.RulesPutBody,
  scope: { of: ({ query, body }) => ownerCall(rulesOwner(query.owner_email, body.owner_email)) },
  success: { status: 200, description: 'The rules now in force', schema: S.Rules },
  errors: ['OWNER_NOT_FOUND', 'INVALID_TIME_ZONE', 'INVALID_SCHEDULE_RULES', 'owner_scope_denied'],
  handler: async ({ db, actor, ownerEmail, body, now }) => ({
    body: rulesView(await putScheduleRules(db, actor.customerId, ownerEmail, body, now, actor)),
  }),
});

export const listTimeZonesOp = defineOperation({
  operationId: 'listTimeZones',
  method: 'GET',
  path: '/v1/time-zones',
  summary: 'The IANA time zone names this server accepts (an owner\'s time_zone)',
  tags: ['Administration'],
  auth: 'api_key',
  success: { status: 200, description: 'Every accepted name', schema: S.TimeZoneList },
  errors: [],
  handler: async () => ({ body: { time_zones: [...supportedTimeZones()] } }),
});

export const createMeetingClassOp = defineOperation({
  operationId: 'createMeetingClass',
  method: 'POST',
  path: '/v1/meeting-classes',
  summary: 'Register a meeting class (customer-scoped; higher priority wins)',
  tags: ['Administration'],
  auth: 'api_key',
  permission: 'manage_customer',
  body: S.MeetingClassCreateBody,
  success: { status: 201, description: 'The new class', schema: S.MeetingClass },
  errors: ['MEETING_CLASS_ALREADY_EXISTS'],
  handler: async ({ db, actor, body }) => ({ body: meetingClassView(await createMeetingClass(db, actor.customerId, body, actor)) }),
});

export const listMeetingClassesOp = defineOperation({
  operationId: 'listMeetingClasses',
  method: 'GET',
  path: '/v1/meeting-classes',
  summary: "List the customer's meeting classes (names, priorities, policies) and the calendar owners the caller may act for",
  tags: ['Administration'],
  auth: 'api_key',
  permission: ['manage_customer', 'read_availability'],
  success: { status: 200, description: 'All classes, and the owners in the caller\'s owner_scope', schema: S.MeetingClassList },
  errors: [],
  handler: async ({ db, actor }) => {
    const [classes, inScope] = await Promise.all([listMeetingClasses(db, actor.customerId), ownersInScope(db, actor.customerId, actor.ownerScope)]);
    return { body: { meeting_classes: classes.map(meetingClassView), owners: inScope.owners, owners_truncated: inScope.truncated } };
  },
});

export const getMeetingClassOp = defineOperation({
  operationId: 'getMeetingClass',
  method: 'GET',
  path: '/v1/meeting-classes/{name}',
  summary: 'One meeting class',
  tags: ['Administration'],
  auth: 'api_key',
  permission: ['manage_customer', 'read_availability'],
  params: S.MeetingClassParams,
  success: { status: 200, description: 'The class', schema: S.MeetingClass },
  errors: ['MEETING_CLASS_NOT_FOUND'],
  handler: async ({ db, actor, params }) => ({ body: meetingClassView(await meetingClassNamed(db, actor.customerId, params.name)) }),
});

export const updateMeetingClassOp = defineOperation({
  operationId: 'updateMeetingClass',
  method: 'PATCH',
  path: '/v1/meeting-classes/{name}',
  summary: 'Change a meeting class (not its name)',
  tags: ['Administration'],
  auth: 'api_key',
  permission: 'manage_customer',
  params: S.MeetingClassParams,
  body: S.MeetingClassPatchBody,
  success: { status: 200, description: 'The class as changed', schema: S.MeetingClass },
  errors: ['MEETING_CLASS_NOT_FOUND'],
  handler: async ({ db, actor, params, body, now }) => ({ body: meetingClassView(await updateMeetingClass(db, actor.customerId, params.name, body, actor, now)) }),
});

export const createAgentOp = defineOperation({
  operationId: 'createAgent',
  method: 'POST',
  path: '/v1/agents',
  summary: 'Create an agent (it can be granted only permissions and scope the caller has)',
  tags: ['Agents and keys'],
  auth: 'api_key',
  permission: 'manage_agents',
  body: S.AgentCreateBody,
  success: { status: 201, description: 'The new agent', schema: S.Agent },
  errors: ['INVALID_TIME_ZONE', 'owner_scope_denied', 'permission_denied'], // any permission it grants and lacks
  handler: async ({ db, actor, body }) => ({ body: agentView(await createAgent(db, actor.customerId, actor, body)) }),
});

export const updateAgentOp = defineOperation({
  operationId: 'updateAgent',
  method: 'PATCH',
  path: '/v1/agents/{id}',
  summary: "Change an agent's name, scope, permissions or disabled flag",
  tags: ['Agents and keys'],
  auth: 'api_key',
  permission: 'manage_agents',
  params: IdParams,
  body: S.AgentPatchBody,
  success: { status: 200, description: 'The agent', schema: S.Agent },
  errors: ['AGENT_NOT_FOUND', 'INVALID_TIME_ZONE', 'owner_scope_denied', 'permission_denied'], // any permission it grants and lacks
  handler: async ({ db, actor, params, body, now }) => ({
    body: agentView(await updateAgent(db, actor.customerId, actor, params.id, body, now)),
  }),
});

export const mintKeyOp = defineOperation({
  operationId: 'mintApiKey',
  method: 'POST',
  path: '/v1/agents/{id}/keys',
  summary: 'Mint an API key for an agent (the key is shown once)',
  description: 'Only for agents the caller could have created: within its owner_scope and holding no permission the caller lacks.',
  tags: ['Agents and keys'],
  auth: 'api_key',
  permission: 'manage_agents',
  params: IdParams,
  body: S.KeyCreateBody,
  idempotency: { redact: ['api_key'] },
  success: { status: 201, description: 'The key; `api_key` appears only in this response', schema: S.MintedKey },
  errors: ['AGENT_NOT_FOUND', 'INVALID_TIME_ZONE', 'owner_scope_denied', 'permission_denied'],
  handler: async ({ db, actor, params, body, now }) => ({ body: await mintApiKey(db, actor.customerId, actor, params.id, body.name ?? null, now, body.display_time_zone ?? null) }),
});

export const revokeKeyOp = defineOperation({
  operationId: 'revokeApiKey',
  method: 'DELETE',
  path: '/v1/agents/{id}/keys/{key_id}',
  summary: 'Revoke an API key (effective immediately)',
  tags: ['Agents and keys'],
  auth: 'api_key',
  permission: 'manage_agents',
  params: S.AgentKeyParams,
  success: { status: 200, description: 'The revoked key', schema: S.RevokedKey },
  errors: ['AGENT_NOT_FOUND', 'API_KEY_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: await revokeApiKey(db, actor.customerId, actor, params.id, params.key_id, now) }),
});

const budget = (p: { limit: number; windowSeconds: number }) => ({ limit: p.limit, window_seconds: p.windowSeconds });

export const getSelfOp = defineOperation({
  operationId: 'getCurrentAgent',
  method: 'GET',
  path: '/v1/agents/me',
  summary: 'The calling agent: id, name, owner scope, permissions, this key and its rate-limit budgets',
  tags: ['Agents and keys'],
  auth: 'api_key',
  success: { status: 200, description: 'The calling agent', schema: S.AgentSelf },
  errors: [],
  handler: async ({ db, actor }) => ({
    body: {
      ...(await describeSelf(db, actor.customerId, actor.agentId, actor.keyId)),
      rate_limits: {
        availability_search: budget(RATE_LIMITS.availabilitySearch),
        holds: budget(RATE_LIMITS.holds),
        bookings: budget(RATE_LIMITS.bookings),
        confirm: budget(RATE_LIMITS.confirm),
        global: budget(RATE_LIMITS.global),
      },
    },
  }),
});

export const listAgentsOp = defineOperation({
  operationId: 'listAgents',
  method: 'GET',
  path: '/v1/agents',
  summary: "The customer's agents",
  tags: ['Agents and keys'],
  auth: 'api_key',
  permission: 'manage_agents',
  success: { status: 200, description: 'Every agent', schema: S.AgentList },
  errors: [],
  handler: async ({ db, actor }) => ({ body: { agents: await listAgents(db, actor.customerId) } }),
});
