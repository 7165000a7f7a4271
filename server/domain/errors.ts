import { isDatabaseUnavailable } from '@/db/errors';
import type { DomainErrorCode } from './errorCodes';

/**
 * The one typed error of the domain layer. `code` comes from the catalogue in
 * server/domain/errorCodes.ts (which also gives its status); transports (the
 * REST wrapper and the tRPC error formatter) map it to their answers; domain
 * code never knows about HTTP.
 *
 * - `reason`: the stable arbitration reason (ARBITRATION_REJECTED).
 * - `fields`: failing input fields, named as the domain names them (`end`,
 *   `window`, `cursor`); the REST wrapper maps them to request paths
 *   (`body.end`, `query.cursor`) in `error.details.fields`.
 * - `details`: other structured detail for the client.
 * - `extra`: fields that belong at the top level of the error body beside
 *   `error` (alternatives, reason_code, next_available, ...; see docs/api.md).
 * - `ownerEmail`: the calendar owner an owner_scope_denied refusal was asked
 *   for; recorded in its audit row, never sent (docs/reliability.md, "Audit actors").
 */
export type FieldIssue = { field: string; message: string };

export type DomainErrorOptions = {
  reason?: string;
  fields?: readonly FieldIssue[];
  details?: unknown;
  extra?: Record<string, unknown>;
  ownerEmail?: string;
};

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly reason?: string;
  readonly fields?: readonly FieldIssue[];
  readonly details?: unknown;
  readonly extra?: Record<string, unknown>;
  readonly ownerEmail?: string;

  constructor(code: DomainErrorCode, message: string, opts: DomainErrorOptions = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.reason = opts.reason;
    this.fields = opts.fields;
    this.details = opts.details;
    this.extra = opts.extra;
    this.ownerEmail = opts.ownerEmail;
  }
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError || (typeof err === 'object' && err !== null && (err as { name?: string }).name === 'DomainError' && typeof (err as { code?: unknown }).code === 'string');
}

/** The message of a field error when none is given: `Invalid <field>: <message>` (transports substitute their path for the field). */
export function fieldErrorMessage(field: string, message: string): string {
  return `Invalid ${field}: ${message}`;
}

/** invalid_request naming one failing input field (a domain name such as `end` or `window`). */
export function invalidField(field: string, message: string, summary?: string): DomainError {
  return new DomainError('invalid_request', summary ?? fieldErrorMessage(field, message), { fields: [{ field, message }] });
}

/** Seconds a client waits before retrying after service_unavailable: a Patroni failover takes a few (docs/operations.md "High availability"). */
export const DATABASE_RETRY_AFTER_SECONDS = 2;

/**
 * A failure of the database connection (no primary, a lost or demoted one: db/errors.ts
 * isDatabaseUnavailable) as the 503 service_unavailable every transport answers; null for any
 * other failure. Never a claim of success: the transaction's outcome is the client's to learn
 * by retrying with its Idempotency-Key.
 */
export function databaseUnavailable(err: unknown): DomainError | null {
  if (!isDatabaseUnavailable(err)) return null;
  return new DomainError('service_unavailable', 'The database is unavailable (its primary is failing over); retry after Retry-After with the same Idempotency-Key', {
    extra: { retry_after_seconds: DATABASE_RETRY_AFTER_SECONDS },
  });
}
