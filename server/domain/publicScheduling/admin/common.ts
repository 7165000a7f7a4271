import { and, gt, type Column, type SQL } from 'drizzle-orm';
import { parseOwnerScope } from '../../access';
import type { AdminActor } from '../../adminAudit';
import { DomainError, invalidField } from '../../errors';
import { isUuid } from '../../ids';

/**
 * Shared pieces of public scheduling administration: the actor type, scope
 * rules, not_found, and keyset pagination over UUIDv7 ids (time-ordered).
 *
 * An agent `actor` is checked against its scope here; an owner acting through
 * the dashboard (admin role) or null (scripts) is a trusted caller whose
 * rights were checked by its transport. Every change is audited with its
 * actor (server/domain/adminAudit.ts).
 */
export type Actor = AdminActor;

/** PostgreSQL foreign_key_violation (db/errors.ts has the unique and exclusion codes). */
export const PG_FOREIGN_KEY_VIOLATION = '23503';

/** The one not_found of public scheduling (docs/public-scheduling.md "Scope"): foreign and unknown ids answer alike. */
export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} not found`);
}

/**
 * Domains, requester identities, credentials and audiences belong to the whole
 * customer, not to one owner: only an `org:*` agent manages them.
 */
export function requireOrgScope(actor: Actor): void {
  if (actor?.kind === 'agent' && parseOwnerScope(actor.ownerScope)?.kind !== 'org') {
    throw new DomainError('owner_scope_denied', 'Domains, requester identities and audiences belong to the whole customer; an agent scoped to one owner cannot manage them');
  }
}

/** The one owner a `user:` scoped agent may act for (null: any owner). */
export function scopedOwnerEmail(actor: Actor): string | null {
  const scope = actor?.kind === 'agent' ? parseOwnerScope(actor.ownerScope) : null;
  return scope?.kind === 'user' ? scope.email : null;
}

export type PageQuery = { limit: number; cursor?: string };
export type Page<T> = { items: T[]; next_cursor: string | null };

/** `id > cursor` for a page after `cursor` (the last id of the previous page), or nothing. */
export function afterCursor(idColumn: Column, cursor: string | undefined): SQL | undefined {
  if (cursor === undefined) return undefined;
  if (!isUuid(cursor)) {
    throw invalidField('cursor', 'Invalid cursor', 'cursor is not one this API returned');
  }
  return gt(idColumn, cursor.toLowerCase());
}

/** Rows fetched with `limit + 1` turned into a page and its next cursor. */
export function pageOf<R extends { id: string }>(rows: R[], limit: number): Page<R> {
  const items = rows.slice(0, limit);
  return { items, next_cursor: rows.length > limit ? items[items.length - 1].id : null };
}

export function allOf(...conds: (SQL | undefined)[]): SQL | undefined {
  return and(...conds.filter((c): c is SQL => c !== undefined));
}
