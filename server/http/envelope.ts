import type { z } from 'zod';
import { DomainError, fieldErrorMessage, isDomainError } from '@/server/domain/errors';
import { statusForCode } from '@/server/domain/errorCodes';

/** The error body of docs/api.md "3. Errors", without `pending_notifications` (added per response, never stored or replayed). */
export type ErrorBody = {
  error: { code: string; message: string; reason?: string; details?: unknown };
  [extra: string]: unknown;
};

/** Where a domain field sits in the request (`end` -> `body.end`); identity when nothing maps it. */
export type FieldLocator = (field: string) => string;

export function errorBody(err: DomainError, locate: FieldLocator = (f) => f): ErrorBody {
  let message = err.message;
  let details = err.details;
  if (err.fields?.length) {
    const fields = err.fields.map((f) => ({ path: locate(f.field), message: f.message }));
    // A message derived from the first field names the field as the client sent it.
    if (message === fieldErrorMessage(err.fields[0].field, err.fields[0].message)) message = fieldErrorMessage(fields[0].path, fields[0].message);
    details = { ...(typeof details === 'object' && details !== null ? details : {}), fields };
  }
  const error: ErrorBody['error'] = { code: err.code, message };
  if (err.reason !== undefined) error.reason = err.reason;
  if (details !== undefined) error.details = details;
  return { error, ...(err.extra ?? {}) };
}

/** Any thrown value as a domain error; unknown faults become internal_error (the cause is logged, never sent). */
export function toDomainError(err: unknown): DomainError {
  if (isDomainError(err)) return err;
  return new DomainError('internal_error', 'The server failed to handle this request; retry with exponential backoff');
}

export function statusOf(err: DomainError): number {
  return statusForCode(err.code);
}

/** A zod failure as a 400 with the failing fields in `error.details.fields`. */
export function validationError(where: 'body' | 'query' | 'path', error: z.ZodError): DomainError {
  const fields = error.issues.slice(0, 50).map((i) => ({
    path: [where, ...i.path.map(String)].join('.'),
    message: i.message,
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
