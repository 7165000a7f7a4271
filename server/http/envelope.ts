import type { z } from 'zod';
import { DomainError, databaseUnavailable, fieldErrorMessage, isDomainError } from '@/server/domain/errors';
import { statusForCode } from '@/server/domain/errorCodes';

/** The error body of docs/api.md "3. Errors", without `pending_notifications` (added per response, never stored or replayed). */
export type ErrorBody = {
  error: { code: string; message: string; reason?: string; details?: unknown };
  [extra: string]: unknown;
};

/**
 * Where a domain field sits in the request (`end` -> `body.end`): one path, or each place an
 * operation looks for it (`owner_email` -> `query.owner_email`, `body.owner_email`); identity
 * when nothing maps it.
 */
export type FieldLocator = (field: string) => string[];

export function errorBody(err: DomainError, locate: FieldLocator = (f) => [f]): ErrorBody {
  let message = err.message;
  let details = err.details;
  if (err.fields?.length) {
    const fields = err.fields.flatMap((f) => locate(f.field).map((path) => ({ path, message: f.message })));
    // A message derived from the first field names the field as the client sent it (every place it was looked for).
    const first = err.fields[0];
    if (message === fieldErrorMessage(first.field, first.message)) message = fieldErrorMessage(locate(first.field).join(' or '), first.message);
    details = { ...(typeof details === 'object' && details !== null ? details : {}), fields };
  }
  const error: ErrorBody['error'] = { code: err.code, message };
  if (err.reason !== undefined) error.reason = err.reason;
  if (details !== undefined) error.details = details;
  return { error, ...(err.extra ?? {}) };
}

/**
 * Any thrown value as a domain error: a lost database primary is service_unavailable (503 with
 * Retry-After, docs/operations.md "High availability"); other unknown faults become
 * internal_error (the cause is logged, never sent).
 */
export function toDomainError(err: unknown): DomainError {
  if (isDomainError(err)) return err;
  const unavailable = databaseUnavailable(err);
  if (unavailable) return unavailable;
  return new DomainError('internal_error', 'The server failed to handle this request; retry with exponential backoff');
}

export function statusOf(err: DomainError): number {
  return statusForCode(err.code);
}

/**
 * A field the input does not carry at all: zod says "expected object, received undefined" (or
 * "Invalid option: ..." for an enum); the answer says it is required, and what it expects.
 */
function missingMessage(input: unknown, issue: z.core.$ZodIssue): string | null {
  if (!issue.path.length) return null;
  let parent: unknown = input;
  for (const k of issue.path.slice(0, -1)) parent = parent && typeof parent === 'object' ? (parent as Record<PropertyKey, unknown>)[k] : undefined;
  if (!parent || typeof parent !== 'object' || Array.isArray(parent)) return null;
  if ((parent as Record<PropertyKey, unknown>)[issue.path[issue.path.length - 1]] !== undefined) return null;
  if (issue.code === 'invalid_type') return `Required (expected ${issue.expected})`;
  if (issue.code === 'invalid_value') return `Required (one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')})`;
  return issue.code === 'invalid_union' ? 'Required' : null;
}

/**
 * A zod failure as a 400 with the failing fields in `error.details.fields` (`input`, what was
 * parsed, tells a missing field from a wrong one: "Required", never "received undefined").
 */
export function validationError(where: 'body' | 'query' | 'path', error: z.ZodError, input?: unknown): DomainError {
  const fields = error.issues.slice(0, 50).map((i) => ({
    path: [where, ...i.path.map(String)].join('.'),
    message: missingMessage(input, i) ?? i.message,
    code: i.code,
  }));
  const first = fields[0];
  return new DomainError('invalid_request', first ? `Invalid ${first.path}: ${first.message}` : `Invalid ${where}`, {
    details: { fields },
  });
}

/** A JSON response from text already encoded (a stored idempotent answer). */
export function jsonTextResponse(status: number, text: string, headers: Headers): Response {
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(text, { status, headers });
}

export function jsonResponse(status: number, body: unknown, headers: Headers): Response {
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(status === 204 ? null : JSON.stringify(body), { status, headers });
}
