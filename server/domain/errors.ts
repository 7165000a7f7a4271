/**
 * The one typed error of the domain layer. Transports (the REST wrapper and
 * the tRPC error formatter) map `code` to a status through
 * server/http/errorStatus.ts; domain code never knows about HTTP.
 *
 * - `reason`: the stable arbitration reason (ARBITRATION_REJECTED).
 * - `details`: structured detail for the client (for example failing fields).
 * - `extra`: fields that belong at the top level of the error body beside
 *   `error` (alternatives, reason_code, next_available, ...; see API.md).
 */
export type DomainErrorOptions = {
  reason?: string;
  details?: unknown;
  extra?: Record<string, unknown>;
};

export class DomainError extends Error {
  readonly code: string;
  readonly reason?: string;
  readonly details?: unknown;
  readonly extra?: Record<string, unknown>;

  constructor(code: string, message: string, opts: DomainErrorOptions = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.reason = opts.reason;
    this.details = opts.details;
    this.extra = opts.extra;
  }
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError || (typeof err === 'object' && err !== null && (err as { name?: string }).name === 'DomainError' && typeof (err as { code?: unknown }).code === 'string');
}

/** A resource of this kind does not exist for this customer (foreign ids answer the same). */
export function notFound(code: string, what: string): DomainError {
  return new DomainError(code, `${what} not found`);
}
