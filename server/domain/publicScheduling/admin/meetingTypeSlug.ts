import { isConstraintViolation, PG_UNIQUE_VIOLATION } from '@/db/errors';
import { DomainError } from '../../errors';

export function duplicateSlug(slug: string): DomainError {
  return new DomainError('duplicate_public_meeting_type', `A meeting type with slug ${JSON.stringify(slug)} already exists on this link`);
}

/** Two writers racing for one slug: the unique index decides, and the loser gets the same 409. */
export function rethrowSlug(err: unknown, slug: string): never {
  if (isConstraintViolation(err, PG_UNIQUE_VIOLATION, 'public_meeting_types_link_slug_key')) throw duplicateSlug(slug);
  throw err;
}
