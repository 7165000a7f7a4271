import { derivedSecret, newSecret } from '../../ids';
import { openSecret, sealSecret, type SealedSecret } from '../../sealing';

/**
 * A requester's waitlist entry is addressed by an unguessable token (`wl_` and 32 random bytes,
 * docs/public-scheduling.md "Waitlist"): the database looks it up by its hash, and keeps it
 * sealed with the at-rest keys (sealing.ts) so the offer's mail, sent after the offer committed,
 * can carry the entry's page.
 */

/** A new token: the plaintext for the join mail, its hash, and the sealed form kept with the entry. */
export function newEntryToken(): { secret: string; hash: string; sealed: string } {
  const token = newSecret('waitlistToken');
  return { secret: token.secret, hash: token.hash, sealed: JSON.stringify(sealSecret({ token: token.secret })) };
}

/** The plaintext token of an entry. */
export function openEntryToken(sealed: string): string {
  return openSecret<{ token: string }>(JSON.parse(sealed) as SealedSecret).token;
}

/** The status token of the request a confirmed offer files (derived one-way from the entry's token: the page links it, only hashes are stored). */
export function offerProposalToken(entryToken: string) {
  return derivedSecret('proposalToken', 'waitlist-offer', entryToken);
}

/** The entry's page, from the pages' base URL and the token. */
export function entryPageUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/waitlist/${token}`;
}
