import type { Permission } from '@/db/schema';
import { DomainError } from './errors';

/** The authenticated agent behind an API key: who is acting, for which customer, within which scope. */
export type AgentActor = {
  kind: 'agent';
  agentId: string;
  customerId: string;
  keyId: string;
  ownerScope: string; // 'org:*' | 'user:<email>'
  permissions: readonly Permission[];
};

export const ORG_SCOPE = 'org:*';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `org:*` or `user:<email>` (email lower-cased). Returns null when malformed. */
export function parseOwnerScope(scope: string): { kind: 'org' } | { kind: 'user'; email: string } | null {
  if (scope === ORG_SCOPE) return { kind: 'org' };
  const m = /^user:(.+@.+)$/.exec(scope);
  return m ? { kind: 'user', email: normalizeEmail(m[1]) } : null;
}

export function hasPermission(actor: AgentActor, permission: Permission): boolean {
  return actor.permissions.includes(permission);
}

export function requirePermission(actor: AgentActor, permission: Permission): void {
  if (!hasPermission(actor, permission)) {
    throw new DomainError(`permission_denied:${permission}`, `This agent lacks the ${permission} permission`);
  }
}

/**
 * The owner an agent acts for: the given email (checked against the agent's
 * owner_scope), or, when omitted, the one owner of a `user:` scoped agent.
 */
export function resolveOwnerEmail(actor: AgentActor, email: string | undefined | null): string {
  const scope = parseOwnerScope(actor.ownerScope);
  if (!email) {
    if (scope?.kind === 'user') return scope.email;
    throw new DomainError('invalid_request', 'owner_email is required for an agent whose owner_scope is org:*', {
      details: { fields: [{ path: 'owner_email', message: 'Required' }] },
    });
  }
  const normalized = normalizeEmail(email);
  assertOwnerInScope(actor, normalized);
  return normalized;
}

export function assertOwnerInScope(actor: AgentActor, ownerEmail: string): void {
  const scope = parseOwnerScope(actor.ownerScope);
  if (scope?.kind === 'org') return;
  if (scope?.kind === 'user' && scope.email === normalizeEmail(ownerEmail)) return;
  throw new DomainError('owner_scope_denied', "The agent's owner_scope does not include this calendar owner");
}
