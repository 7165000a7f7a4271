import { and, asc, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { agents, apiKeys, PERMISSIONS, type Permission } from '@/db/schema';
import { parseOwnerScope, requirePermission } from './access';
import { audited, type AdminActor } from './adminAudit';
import { DomainError, invalidField } from './errors';
import { isUuid, newId, newSecret } from './ids';
import { afterCommit } from './afterCommit';
import { forgetVerified } from './verifiedKeys';
import { requireTimeZone } from './callerZone';

export type AgentRow = typeof agents.$inferSelect;
export type AgentView = { agent_id: string; name: string; owner_scope: string; permissions: Permission[]; disabled: boolean; display_time_zone: string | null; created_at: string };
export type MintedKey = { key_id: string; api_key: string; prefix: string; display_time_zone: string | null; created_at: string };

export function agentView(a: AgentRow): AgentView {
  return { agent_id: a.id, name: a.name, owner_scope: a.ownerScope, permissions: a.permissions, disabled: a.disabled, display_time_zone: a.displayTimeZone, created_at: a.createdAt.toISOString() };
}

/** Canonical owner_scope (`org:*` or `user:<lower-cased email>`), or a 400. */
function canonicalOwnerScope(scope: string): string {
  const parsed = parseOwnerScope(scope);
  if (!parsed) throw invalidField('owner_scope', 'Invalid owner_scope', 'owner_scope must be "org:*" or "user:<email>"');
  return parsed.kind === 'org' ? 'org:*' : `user:${parsed.email}`;
}

/**
 * An agent may hand out only what it has: every granted permission must be
 * its own, and the new scope must lie within its own scope.
 */
function assertCanGrant(actor: AdminActor, scope: string, permissions: readonly Permission[]): void {
  if (actor?.kind !== 'agent') return; // bootstrap and dashboard owners (admin role) are checked by their caller
  if (actor.ownerScope !== 'org:*' && scope !== actor.ownerScope) {
    const asked = parseOwnerScope(scope);
    throw new DomainError('owner_scope_denied', 'An agent can only create or manage agents within its own owner_scope', asked?.kind === 'user' ? { ownerEmail: asked.email } : {});
  }
  for (const p of permissions) requirePermission(actor, p);
}

/**
 * An agent may manage (change, mint or revoke keys of) only agents it could
 * have created: within its own scope and holding no permission it lacks.
 * Otherwise a key minted for a stronger agent would be an escalation.
 */
function assertCanManage(actor: AdminActor, target: AgentRow): void {
  assertCanGrant(actor, target.ownerScope, target.permissions);
}

function uniquePermissions(perms: readonly string[]): Permission[] {
  return PERMISSIONS.filter((p) => perms.includes(p));
}

const agentFacts = (a: AgentRow) => ({ agent_id: a.id, name: a.name, owner_scope: a.ownerScope, permissions: a.permissions, disabled: a.disabled, display_time_zone: a.displayTimeZone });

/** A display_time_zone as stored: its IANA spelling, null to clear, or 400 INVALID_TIME_ZONE. */
const displayZone = (tz: string | null) => (tz === null ? null : requireTimeZone(tz, 'display_time_zone'));

export async function createAgent(
  db: Executor,
  customerId: string,
  actor: AdminActor,
  input: { name: string; owner_scope: string; permissions: Permission[]; display_time_zone?: string | null },
): Promise<AgentRow> {
  return audited(db, actor, (tx) => insertAgent(tx, customerId, actor, input), (row) => ({ action: 'agent.create', customerId, details: agentFacts(row), at: new Date() }));
}

async function insertAgent(
  db: Executor,
  customerId: string,
  actor: AdminActor,
  input: { name: string; owner_scope: string; permissions: Permission[]; display_time_zone?: string | null },
): Promise<AgentRow> {
  const scope = canonicalOwnerScope(input.owner_scope);
  const permissions = uniquePermissions(input.permissions);
  assertCanGrant(actor, scope, permissions);
  const displayTimeZone = displayZone(input.display_time_zone ?? null);
  const [row] = await db.insert(agents).values({ id: newId(), customerId, name: input.name, ownerScope: scope, permissions, displayTimeZone }).returning();
  return row;
}

export async function getAgent(db: Executor, customerId: string, agentId: string): Promise<AgentRow> {
  if (!isUuid(agentId)) throw new DomainError('AGENT_NOT_FOUND', 'Agent not found');
  const [row] = await db.select().from(agents).where(and(eq(agents.id, agentId), eq(agents.customerId, customerId))).limit(1);
  if (!row) throw new DomainError('AGENT_NOT_FOUND', 'Agent not found');
  return row;
}

export async function updateAgent(
  db: Executor,
  customerId: string,
  actor: AdminActor,
  agentId: string,
  patch: { name?: string; owner_scope?: string; permissions?: Permission[]; disabled?: boolean; display_time_zone?: string | null },
  now: Date,
): Promise<AgentRow> {
  return audited(
    db,
    actor,
    async (tx) => {
      const before = await getAgent(tx, customerId, agentId);
      return { before: agentFacts(before), row: await changeAgent(tx, customerId, actor, agentId, patch, now) };
    },
    ({ before, row }) => ({ action: 'agent.update', customerId, details: { ...agentFacts(row), before }, at: now }),
  ).then(async (r) => {
    // Committed: this process's verified keys of the agent go now; other instances hear the database (docs/architecture.md "API keys").
    await afterCommit(db, () => forgetVerified({ agentId: r.row.id }));
    return r.row;
  });
}

async function changeAgent(
  db: Executor,
  customerId: string,
  actor: AdminActor,
  agentId: string,
  patch: { name?: string; owner_scope?: string; permissions?: Permission[]; disabled?: boolean; display_time_zone?: string | null },
  now: Date,
): Promise<AgentRow> {
  const current = await getAgent(db, customerId, agentId);
  assertCanManage(actor, current);
  const scope = patch.owner_scope !== undefined ? canonicalOwnerScope(patch.owner_scope) : current.ownerScope;
  const permissions = patch.permissions !== undefined ? uniquePermissions(patch.permissions) : current.permissions;
  // Only newly granted permissions need the actor's own; changing scope needs the actor's scope to cover it.
  assertCanGrant(actor, scope, permissions.filter((p) => !current.permissions.includes(p)));
  const [row] = await db
    .update(agents)
    .set({
      name: patch.name ?? current.name,
      ownerScope: scope,
      permissions,
      disabled: patch.disabled ?? current.disabled,
      displayTimeZone: patch.display_time_zone !== undefined ? displayZone(patch.display_time_zone) : current.displayTimeZone,
      updatedAt: now,
    })
    .where(eq(agents.id, current.id))
    .returning();
  return row;
}

/** Mint a new `ak_` key for an agent; the plaintext is returned once and only its hash is stored. */
export async function mintApiKey(db: Executor, customerId: string, actor: AdminActor, agentId: string, name: string | null, now: Date, displayTimeZone: string | null = null): Promise<MintedKey> {
  return audited(
    db,
    actor,
    (tx) => insertApiKey(tx, customerId, actor, agentId, name, now, displayTimeZone),
    (key) => ({ action: 'api_key.mint', customerId, details: { agent_id: agentId, key_id: key.key_id, prefix: key.prefix, name, ...(key.display_time_zone ? { display_time_zone: key.display_time_zone } : {}) }, at: now }),
  );
}

async function insertApiKey(db: Executor, customerId: string, actor: AdminActor, agentId: string, name: string | null, now: Date, zone: string | null): Promise<MintedKey> {
  const agent = await getAgent(db, customerId, agentId);
  assertCanManage(actor, agent);
  const displayTimeZone = displayZone(zone);
  const key = newSecret('apiKey');
  const [row] = await db
    .insert(apiKeys)
    .values({ id: newId(), customerId, agentId: agent.id, name, keyHash: key.hash, prefix: key.displayPrefix, displayTimeZone, createdAt: now })
    .returning();
  return { key_id: row.id, api_key: key.secret, prefix: row.prefix, display_time_zone: row.displayTimeZone, created_at: row.createdAt.toISOString() };
}

export async function revokeApiKey(
  db: Executor,
  customerId: string,
  actor: AdminActor,
  agentId: string,
  keyId: string,
  now: Date,
): Promise<{ key_id: string; revoked_at: string }> {
  return audited(
    db,
    actor,
    (tx) => revokeKey(tx, customerId, actor, agentId, keyId, now),
    // A key already revoked keeps its first revocation time: nothing changed, nothing to record.
    (r) => (r.revoked_at === now.toISOString() ? { action: 'api_key.revoke', customerId, details: { agent_id: agentId, key_id: r.key_id }, at: now } : null),
  ).then(async (r) => {
    await afterCommit(db, () => forgetVerified({ keyId: r.key_id })); // as in updateAgent
    return r;
  });
}

async function revokeKey(
  db: Executor,
  customerId: string,
  actor: AdminActor,
  agentId: string,
  keyId: string,
  now: Date,
): Promise<{ key_id: string; revoked_at: string }> {
  assertCanManage(actor, await getAgent(db, customerId, agentId));
  if (!isUuid(keyId)) throw new DomainError('API_KEY_NOT_FOUND', 'API key not found');
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.agentId, agentId), eq(apiKeys.customerId, customerId)))
    .limit(1);
  if (!row) throw new DomainError('API_KEY_NOT_FOUND', 'API key not found');
  if (row.revokedAt) return { key_id: row.id, revoked_at: row.revokedAt.toISOString() };
  const [updated] = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
    .returning();
  return { key_id: keyId, revoked_at: (updated?.revokedAt ?? now).toISOString() };
}

type KeyView = { key_id: string; name: string | null; prefix: string; display_time_zone: string | null; created_at: string; last_used_at: string | null; revoked_at: string | null };
export type AgentWithKeys = AgentView & { keys: KeyView[] };

/** The customer's agents, oldest first, each with its keys (newest first; revoked ones included, marked). */
export async function listAgentsWithKeys(db: Executor, customerId: string): Promise<AgentWithKeys[]> {
  const rows = await db.select().from(agents).where(eq(agents.customerId, customerId)).orderBy(asc(agents.createdAt), asc(agents.id));
  const keys = await db.select().from(apiKeys).where(eq(apiKeys.customerId, customerId)).orderBy(desc(apiKeys.createdAt));
  return rows.map((a) => ({
    ...agentView(a),
    keys: keys
      .filter((k) => k.agentId === a.id)
      .map((k) => ({
        key_id: k.id,
        name: k.name,
        prefix: k.prefix,
        display_time_zone: k.displayTimeZone,
        created_at: k.createdAt.toISOString(),
        last_used_at: k.lastUsedAt?.toISOString() ?? null,
        revoked_at: k.revokedAt?.toISOString() ?? null,
      })),
  }));
}

/** GET /v1/agents: every agent of the customer, oldest first. */
export async function listAgents(db: Executor, customerId: string): Promise<AgentView[]> {
  const rows = await db.select().from(agents).where(eq(agents.customerId, customerId)).orderBy(agents.createdAt, agents.id);
  return rows.map(agentView);
}

/** GET /v1/agents/me: the calling agent and the display prefix of the key it called with. */
export async function describeSelf(
  db: Executor,
  customerId: string,
  agentId: string,
  keyId: string,
): Promise<AgentView & { key_id: string; key_prefix: string | null; key_display_time_zone: string | null }> {
  const agent = await getAgent(db, customerId, agentId);
  const [key] = await db.select({ prefix: apiKeys.prefix, zone: apiKeys.displayTimeZone }).from(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.agentId, agentId)));
  return { ...agentView(agent), key_id: keyId, key_prefix: key?.prefix ?? null, key_display_time_zone: key?.zone ?? null };
}
