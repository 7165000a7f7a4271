import { and, asc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '@/db/client';
import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { owners, publicLinks } from '@/db/schema';
import { assertOwnerInScope, normalizeEmail } from '../../access';
import { audited, type AdminAction, type AdminChange } from '../../adminAudit';
import { DomainError, invalidField } from '../../errors';
import { isUuid, newId } from '../../ids';
import { afterCursor, allOf, notFound, pageOf, scopedOwnerEmail, type Actor, type Page, type PageQuery } from './common';
import { validateAlias } from './validation';
import type { Locale } from '@/i18n/locales';

type LinkRow = typeof publicLinks.$inferSelect;
type OwnerRow = typeof owners.$inferSelect;
export type LinkRecord = { link: LinkRow; owner: OwnerRow };
export type LinkView = {
  link_id: string;
  alias: string;
  title: string | null;
  url: string;
  owner_email: string;
  created_at: string;
  updated_at: string;
  deleted_at?: string;
  /** While the owner is out of office, requesters go to this link (docs/public-scheduling.md "Away"). */
  away_redirect_link_id: string | null;
  /** The requester pages' language when the request names none we have; null: English (docs/public-scheduling.md "Languages"). */
  default_language: Locale | null;
};

/** `{baseUrl}/public/schedules/{alias}`: the readable address requesters open. */
function linkUrl(baseUrl: string, alias: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/public/schedules/${alias}`;
}

/** `{baseUrl}/{alias}`: the link's booking page for people (docs/public-scheduling.md "Booking pages"); a type's is `{this}/{slug}`. */
export function bookingPageUrl(baseUrl: string, alias: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${alias}`;
}

export function linkView(r: LinkRecord, baseUrl: string): LinkView {
  const view: LinkView = {
    link_id: r.link.id,
    alias: r.link.alias,
    title: r.link.title,
    url: linkUrl(baseUrl, r.link.alias),
    owner_email: r.owner.email,
    created_at: r.link.createdAt.toISOString(),
    updated_at: r.link.updatedAt.toISOString(),
    away_redirect_link_id: r.link.awayRedirectLinkId,
    default_language: r.link.defaultLanguage,
  };
  if (r.link.deletedAt) view.deleted_at = r.link.deletedAt.toISOString();
  return view;
}

function duplicateAlias(alias: string): DomainError {
  return new DomainError('duplicate_alias', `The alias ${JSON.stringify(alias)} is already in use`);
}

/** Aliases are global (they address the link), so a taken alias answers the same whoever holds it. */
function rethrowAlias(err: unknown, alias: string): never {
  if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'public_links_alias_key')) throw duplicateAlias(alias);
  throw err;
}

async function aliasTaken(db: Executor, alias: string): Promise<boolean> {
  const [row] = await db.select({ id: publicLinks.id }).from(publicLinks).where(eq(publicLinks.alias, alias)).limit(1);
  return !!row;
}

/** The audit entry of a change to a link. */
function linkChange(action: AdminAction, r: LinkRecord, now: Date, details: Record<string, unknown> = {}): AdminChange {
  return { action, customerId: r.link.customerId, owner: r.owner, details: { link_id: r.link.id, alias: r.link.alias, title: r.link.title, away_redirect_link_id: r.link.awayRedirectLinkId, default_language: r.link.defaultLanguage, ...details }, at: now };
}

type LinkInput = { alias: string; title?: string | null; default_language?: Locale | null };

/** A new public link for an owner the caller's scope covers (`ownerEmail` resolved by the transport). */
export async function createLink(
  db: Executor,
  customerId: string,
  ownerEmail: string,
  input: LinkInput,
  now: Date,
  actor: Actor = null,
): Promise<LinkRecord> {
  return audited(db, actor, (tx) => insertLink(tx, customerId, ownerEmail, input, now), (r) => linkChange('public_link.create', r, now));
}

async function insertLink(
  db: Executor,
  customerId: string,
  ownerEmail: string,
  input: LinkInput,
  now: Date,
): Promise<LinkRecord> {
  const alias = validateAlias(input.alias);
  const [owner] = await db
    .select()
    .from(owners)
    .where(and(eq(owners.customerId, customerId), eq(owners.email, normalizeEmail(ownerEmail))))
    .limit(1);
  if (!owner) throw new DomainError('OWNER_NOT_FOUND', `No calendar owner with email ${normalizeEmail(ownerEmail)}`);
  if (await aliasTaken(db, alias)) throw duplicateAlias(alias);
  try {
    const [link] = await db
      .insert(publicLinks)
      .values({ id: newId(), customerId, ownerId: owner.id, alias, title: input.title ?? null, defaultLanguage: input.default_language ?? null, createdAt: now, updatedAt: now })
      .returning();
    return { link, owner };
  } catch (err) {
    rethrowAlias(err, alias);
  }
}

/** A live (not deleted) link of this customer in the caller's owner scope; anything else is not_found. */
export async function getLink(db: Executor, customerId: string, actor: Actor, linkId: string): Promise<LinkRecord> {
  if (!isUuid(linkId)) throw notFound('Public link');
  const [found] = await db
    .select({ link: publicLinks, owner: owners })
    .from(publicLinks)
    .innerJoin(owners, eq(owners.id, publicLinks.ownerId))
    .where(and(eq(publicLinks.id, linkId), eq(publicLinks.customerId, customerId), isNull(publicLinks.deletedAt)))
    .limit(1);
  if (!found) throw notFound('Public link');
  if (actor?.kind === 'agent') assertOwnerInScope(actor, found.owner.email);
  return found;
}

/** Live links in the caller's scope, optionally of one owner, oldest first. */
export async function listLinks(
  db: Executor,
  customerId: string,
  actor: Actor,
  q: PageQuery & { owner_email?: string },
): Promise<Page<LinkRecord & { id: string }>> {
  const only = q.owner_email ? normalizeEmail(q.owner_email) : scopedOwnerEmail(actor);
  if (q.owner_email && actor?.kind === 'agent') assertOwnerInScope(actor, only!);
  const rows = await db
    .select({ id: publicLinks.id, link: publicLinks, owner: owners })
    .from(publicLinks)
    .innerJoin(owners, eq(owners.id, publicLinks.ownerId))
    .where(
      allOf(
        eq(publicLinks.customerId, customerId),
        isNull(publicLinks.deletedAt),
        only ? eq(owners.email, only) : undefined,
        afterCursor(publicLinks.id, q.cursor),
      ),
    )
    .orderBy(asc(publicLinks.id))
    .limit(q.limit + 1);
  return pageOf(rows, q.limit);
}

export type LinkPatch = { alias?: string; title?: string | null; away_redirect_link_id?: string | null; default_language?: Locale | null };

/** Change a link's alias, title, away redirect or default language. */
export async function updateLink(
  db: Executor,
  customerId: string,
  actor: Actor,
  linkId: string,
  patch: LinkPatch,
  now: Date,
): Promise<LinkRecord> {
  return audited(db, actor, (tx) => changeLink(tx, customerId, actor, linkId, patch, now), (r) => linkChange('public_link.update', r, now));
}

async function changeLink(
  db: Executor,
  customerId: string,
  actor: Actor,
  linkId: string,
  patch: LinkPatch,
  now: Date,
): Promise<LinkRecord> {
  const current = await getLink(db, customerId, actor, linkId);
  const alias = patch.alias !== undefined ? validateAlias(patch.alias) : current.link.alias;
  if (alias !== current.link.alias && (await aliasTaken(db, alias))) throw duplicateAlias(alias);
  const away = patch.away_redirect_link_id === undefined ? current.link.awayRedirectLinkId : patch.away_redirect_link_id && (await awayTarget(db, current, patch.away_redirect_link_id));
  try {
    const [link] = await db
      .update(publicLinks)
      .set({
        alias,
        title: patch.title !== undefined ? patch.title : current.link.title,
        awayRedirectLinkId: away,
        defaultLanguage: patch.default_language !== undefined ? patch.default_language : current.link.defaultLanguage,
        updatedAt: now,
      })
      .where(eq(publicLinks.id, current.link.id))
      .returning();
    return { link, owner: current.owner };
  } catch (err) {
    rethrowAlias(err, alias);
  }
}

/**
 * The link a redirect may name (docs/public-scheduling.md "Away"): a live link of the same
 * customer, of another owner, that does not lead back here through the redirects it names.
 * Another customer's link answers as an unknown id does.
 */
async function awayTarget(db: Executor, from: LinkRecord, targetId: string): Promise<string> {
  const field = 'away_redirect_link_id';
  const live = async (id: string) => {
    const [row] = isUuid(id)
      ? await db
          .select({ id: publicLinks.id, ownerId: publicLinks.ownerId, alias: publicLinks.alias, next: publicLinks.awayRedirectLinkId })
          .from(publicLinks)
          .where(and(eq(publicLinks.id, id.toLowerCase()), eq(publicLinks.customerId, from.link.customerId), isNull(publicLinks.deletedAt)))
          .limit(1)
      : [];
    return row ?? null;
  };
  const target = await live(targetId);
  if (!target) throw invalidField(field, 'names no live link of this customer');
  if (target.id === from.link.id || target.ownerId === from.link.ownerId) throw invalidField(field, "must be another owner's link (a colleague's)");
  const passed = new Set([target.id]);
  for (let at = target; at.next; ) {
    if (at.next === from.link.id) throw invalidField(field, `would loop: /${at.alias} sends its requesters back to /${from.link.alias}`);
    const next = passed.has(at.next) ? null : await live(at.next);
    if (!next) break;
    passed.add(next.id);
    at = next;
  }
  return target.id;
}

/**
 * Soft-delete a link: it stops answering (404 to requesters and admins) and
 * its alias stays taken, so an old URL can never lead to someone else.
 */
export async function deleteLink(db: Executor, customerId: string, actor: Actor, linkId: string, now: Date): Promise<LinkRecord> {
  return audited(db, actor, (tx) => softDeleteLink(tx, customerId, actor, linkId, now), (r) => linkChange('public_link.delete', r, now));
}

async function softDeleteLink(db: Executor, customerId: string, actor: Actor, linkId: string, now: Date): Promise<LinkRecord> {
  const current = await getLink(db, customerId, actor, linkId);
  const [link] = await db
    .update(publicLinks)
    .set({ deletedAt: now, updatedAt: now })
    .where(and(eq(publicLinks.id, current.link.id), isNull(publicLinks.deletedAt)))
    .returning();
  if (!link) throw notFound('Public link');
  return { link, owner: current.owner };
}

/**
 * Requester side: a live link by its id or its alias (aliases are matched
 * lower-cased), with its owner; null when none.
 */
export async function findLinkByIdOrAlias(db: Executor, idOrAlias: string): Promise<LinkRecord | null> {
  const where = isUuid(idOrAlias) ? eq(publicLinks.id, idOrAlias.toLowerCase()) : eq(publicLinks.alias, idOrAlias.toLowerCase());
  const [found] = await db
    .select({ link: publicLinks, owner: owners })
    .from(publicLinks)
    .innerJoin(owners, eq(owners.id, publicLinks.ownerId))
    .where(and(where, isNull(publicLinks.deletedAt)))
    .limit(1);
  return found ?? null;
}

export type AliasCheck = { alias: string; available: boolean; code?: 'invalid_alias' | 'duplicate_alias'; message?: string };

/**
 * Whether `alias` could be given to a new link now: the same checks (and
 * codes) as createLink, answered instead of thrown, for checking as one types.
 */
export async function checkAlias(db: Executor, alias: string): Promise<AliasCheck> {
  try {
    validateAlias(alias);
  } catch (err) {
    if (err instanceof DomainError) return { alias, available: false, code: 'invalid_alias', message: err.message };
    throw err;
  }
  if (await aliasTaken(db, alias)) return { alias, available: false, code: 'duplicate_alias', message: duplicateAlias(alias).message };
  return { alias, available: true };
}
