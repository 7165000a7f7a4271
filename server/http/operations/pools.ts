import { createPool, deletePool, getPool, listPools, poolAssignmentsReport, poolView, updatePool } from '@/server/domain/pools/poolService';
import { defineOperation } from '../operation';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/pools';

/** Pools (docs/groups.md, "Pools"): administration needs manage_customer; reading them, read_availability too (an agent picks the pool it books through). */

const MEMBERS = ['OWNER_NOT_FOUND', 'owner_scope_denied'] as const;

export const listPoolsOp = defineOperation({
  operationId: 'listPools',
  method: 'GET',
  path: '/v1/pools',
  summary: "The customer's pools (for a user-scoped agent: those all of whose members it covers)",
  tags: ['Pools'],
  auth: 'api_key',
  permission: ['manage_customer', 'read_availability'],
  success: { status: 200, description: 'Every pool, by name', schema: S.PoolList },
  errors: [],
  handler: async ({ db, actor }) => ({ body: { pools: (await listPools(db, actor.customerId, actor)).map(poolView) } }),
});

export const createPoolOp = defineOperation({
  operationId: 'createPool',
  method: 'POST',
  path: '/v1/pools',
  summary: 'Create a pool: a named set of owners with weights (1 to 100)',
  tags: ['Pools'],
  auth: 'api_key',
  permission: 'manage_customer',
  body: S.PoolCreateBody,
  success: { status: 201, description: 'The new pool', schema: S.Pool },
  errors: ['POOL_ALREADY_EXISTS', ...MEMBERS],
  handler: async ({ db, actor, body, now }) => ({ body: poolView(await createPool(db, actor.customerId, actor, body, now)) }),
});

export const getPoolOp = defineOperation({
  operationId: 'getPool',
  method: 'GET',
  path: '/v1/pools/{id}',
  summary: 'Read a pool',
  tags: ['Pools'],
  auth: 'api_key',
  permission: ['manage_customer', 'read_availability'],
  params: IdParams,
  success: { status: 200, description: 'The pool', schema: S.Pool },
  errors: ['POOL_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params }) => ({ body: poolView(await getPool(db, actor.customerId, actor, params.id)) }),
});

export const updatePoolOp = defineOperation({
  operationId: 'updatePool',
  method: 'PATCH',
  path: '/v1/pools/{id}',
  summary: 'Rename a pool or replace its members and weights',
  tags: ['Pools'],
  auth: 'api_key',
  permission: 'manage_customer',
  params: IdParams,
  body: S.PoolPatchBody,
  success: { status: 200, description: 'The pool', schema: S.Pool },
  errors: ['POOL_NOT_FOUND', 'POOL_ALREADY_EXISTS', ...MEMBERS],
  handler: async ({ db, actor, params, body, now }) => ({ body: poolView(await updatePool(db, actor.customerId, actor, params.id, body, now)) }),
});

export const deletePoolOp = defineOperation({
  operationId: 'deletePool',
  method: 'DELETE',
  path: '/v1/pools/{id}',
  summary: 'Delete a pool (its claims stay with their owners)',
  tags: ['Pools'],
  auth: 'api_key',
  permission: 'manage_customer',
  params: IdParams,
  success: { status: 200, description: 'The deleted pool', schema: S.Pool },
  errors: ['POOL_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, now }) => ({ body: poolView(await deletePool(db, actor.customerId, actor, params.id, now)) }),
});

export const poolAssignmentsOp = defineOperation({
  operationId: 'getPoolAssignments',
  method: 'GET',
  path: '/v1/pools/{id}/assignments',
  summary: "Each member's minutes booked through the pool in a period (default the last 30 days), its share against its weight's",
  tags: ['Pools'],
  auth: 'api_key',
  permission: ['manage_customer', 'read_availability'],
  params: IdParams,
  query: S.PoolAssignmentsQuery,
  success: { status: 200, description: 'Shares per member', schema: S.PoolAssignments },
  errors: ['POOL_NOT_FOUND', 'owner_scope_denied'],
  handler: async ({ db, actor, params, query, now }) => ({
    body: await poolAssignmentsReport(db, actor.customerId, actor, params.id, { from: query.from ? new Date(query.from) : undefined, to: query.to ? new Date(query.to) : undefined }, now),
  }),
});
