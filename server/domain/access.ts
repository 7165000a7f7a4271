import type { Permission } from '@/db/schema';
import { DomainError, invalidField } from './errors';

/** The authenticated agent behind an API key: who is acting, for which customer, within which scope. */
export type AgentActor = {
  kind: 'agent';
  agentId: string;
  customerId: string;
  keyId: string;
  ownerScope: string; // 'org:*' | 'user:<email>'
  permissions: readonly Permission[];
  /** The key's display_time_zone, else its agent's: the default caller zone (docs/api.md "The caller's time zone"). */
  displayTimeZone?: string | null;
};

const ORG_SCOPE = 'org:*';

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** `org:*` or `user:<email>` (email lower-cased). Returns null when malformed. */
export function parseOwnerScope(scope: string): { kind: 'org' } | { kind: 'user'; email: string } | null {
  if (scope === ORG_SCOPE) return { kind: 'org' };
  const m = /^user:(.+@.+)$/.exec(scope);
  return m ? { kind: 'user', email: normalizeEmail(m[1]) } : null;
}

/**
 * Who a hold is placed for: an agent, or nobody's key (a requester's waitlist offer,
 * docs/public-scheduling.md "Waitlist": `agentId` null, no permissions, free time only).
 */
export type HoldActor = Pick<AgentActor, 'customerId' | 'permissions'> & { agentId: string | null };

export function hasPermission(actor: Pick<AgentActor, 'permissions'>, permission: Permission): boolean {
  return actor.permissions.includes(permission);
}

/** What an operation requires: one permission, or any one of several (the first is the one a refusal names). */
export type PermissionRequirement = Permission | readonly [Permission, ...Permission[]];

export function requiredPermissions(requirement: PermissionRequirement | undefined): readonly Permission[] {
  if (requirement === undefined) return [];
  return typeof requirement === 'string' ? [requirement] : requirement;
}

/** Passes when the agent holds the permission (or any one of them); otherwise 403 `permission_denied:<first>`. */
export function requirePermission(actor: AgentActor, requirement: PermissionRequirement): void {
  const perms = requiredPermissions(requirement);
  if (!perms.some((p) => hasPermission(actor, p))) {
    throw new DomainError(`permission_denied:${perms[0]}`, `This agent lacks the ${perms.join(' or ')} permission`);
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
    // A field error: the REST wrapper names where the operation looks for it (query.owner_email, body.owner_email).
    throw invalidField('owner_email', 'Required for an agent whose owner_scope is org:*');
  }
  const normalized = normalizeEmail(email);
  assertOwnerInScope(actor, normalized);
  return normalized;
}

/**
 * Several owners named at once (a group, docs/groups.md): each normalised and checked against
 * the agent's owner_scope; the first one outside it is refused (owner_scope_denied naming it).
 */
export function resolveOwnerEmails(actor: AgentActor, emails: readonly string[]): string[] {
  return emails.map((email) => {
    const normalized = normalizeEmail(email);
    assertOwnerInScope(actor, normalized);
    return normalized;
  });
}

export function assertOwnerInScope(actor: AgentActor, ownerEmail: string): void {
  const scope = parseOwnerScope(actor.ownerScope);
  if (scope?.kind === 'org') return;
  if (scope?.kind === 'user' && scope.email === normalizeEmail(ownerEmail)) return;
  throw new DomainError('owner_scope_denied', "The agent's owner_scope does not include this calendar owner", { ownerEmail: normalizeEmail(ownerEmail) });
}
