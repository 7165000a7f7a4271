import { domainToASCII } from 'node:url';
import { DomainError } from '../../errors';

/**
 * Names an administrator chooses: link aliases, meeting type slugs and
 * domains. Pure functions; each answers the normalized value or throws the
 * public scheduling code docs/public-scheduling.md names.
 */

/**
 * Aliases that would shadow a product path or confuse a reader of the URL.
 * the product's list (docs/public-scheduling.md "Links and aliases") plus the service's own path segments and common
 * infrastructure names.
 */
export const RESERVED_ALIASES: ReadonlySet<string> = new Set([
  // the product's reserved words (docs/public-scheduling.md "Links and aliases")
  'admin', 'api', 'app', 'public', 'v1', 'book', 'dashboard', 'docs', 'login', 'settings', 'static', 'assets',
  // service paths and versions
  'v2', 'v3', 'schedules', 'booking-proposals', 'contact-verifications', 'meeting-types', 'suggested-times',
  'public-scheduling', 'openapi', 'openapi-json', 'trpc', 'health', 'healthz', 'status', 'metrics', 'next', 'mcp',
  // accounts and infrastructure
  'logout', 'signin', 'signout', 'signup', 'register', 'account', 'accounts', 'auth', 'oauth', 'sso', 'billing',
  'help', 'support', 'about', 'contact', 'terms', 'privacy', 'security', 'www', 'mail', 'email', 'cdn',
  'root', 'system', 'null', 'undefined', 'new', 'edit', 'delete', 'me', 'self', 'favicon', 'robots',
  // requester pages beside the links (docs/public-scheduling.md "Waitlist")
  'waitlist',
]);

const ALIAS_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
/** The shape of an id (8-4-4-4-12), hex or not: such an alias would be ambiguous in /public/schedules/{id}. */
const UUID_SHAPED_RE = /^[a-z0-9]{8}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{12}$/i;

/** A link alias: lowercase letters, digits and inner hyphens, 3 to 64, not reserved, not id-shaped. */
export function validateAlias(alias: string): string {
  const invalid = (why: string) => new DomainError('invalid_alias', `alias ${JSON.stringify(alias)} ${why}`);
  if (RESERVED_ALIASES.has(alias)) throw invalid('is reserved');
  if (alias.length < 3 || alias.length > 64) throw invalid('must be 3 to 64 characters long');
  if (!ALIAS_RE.test(alias)) throw invalid('may contain only lowercase letters, digits and hyphens, and must not start or end with a hyphen');
  if (UUID_SHAPED_RE.test(alias)) throw invalid('must not look like a link id');
  return alias;
}

/** Meeting type slugs: the alias alphabet, 1 to 64 (checked by the request schema; shared with the domain). */
export const SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

const LABEL_RE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A domain name as customers type it, normalized: trimmed, lower-cased, one
 * trailing dot dropped, internationalized names in their ASCII (punycode)
 * form. At least two labels, each 1 to 63 letters, digits or inner hyphens,
 * at most 253 in all, a top-level label that is not all digits (so no IP
 * addresses), and no scheme, path, port or wildcard.
 */
export function normalizeDomain(input: string): string {
  const invalid = (why: string) => new DomainError('invalid_domain', `${JSON.stringify(input)} is not a valid domain: ${why}`);
  let d = input.trim().toLowerCase();
  if (/[/:@?#*\s]/.test(d)) throw invalid('give the bare host name, without scheme, port, path or wildcard');
  if (d.endsWith('.')) d = d.slice(0, -1);
  // Internationalized names are converted to their ASCII (punycode) form first.
  if (/[^\x00-\x7f]/.test(d)) {
    d = domainToASCII(d);
    if (!d) throw invalid('it cannot be converted to an ASCII (punycode) name');
  }
  if (!d || d.length > 253) throw invalid('it must be 1 to 253 characters long');
  const labels = d.split('.');
  if (labels.length < 2) throw invalid('it needs at least two labels, e.g. example.com');
  for (const label of labels) {
    if (!LABEL_RE.test(label)) throw invalid(`label ${JSON.stringify(label)} must be 1 to 63 letters, digits or inner hyphens`);
  }
  if (/^\d+$/.test(labels[labels.length - 1])) throw invalid('the top-level label cannot be numeric');
  return d;
}

/** The domain part of an email address (lower-cased), or null when it has none. */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  return at > 0 ? email.slice(at + 1).trim().toLowerCase() || null : null;
}
