/** PostgreSQL error details from a (possibly Drizzle-wrapped) driver error. */
export function pgErrorInfo(err: unknown): { code?: string; constraint?: string } {
  let e: unknown = err;
  for (let depth = 0; e && depth < 4; depth++) {
    const o = e as { code?: unknown; constraint_name?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && /^[0-9A-Z]{5}$/.test(o.code)) {
      const constraint = (o.constraint_name ?? o.constraint) as string | undefined;
      return { code: o.code, constraint };
    }
    e = o.cause;
  }
  return {};
}

export const PG_EXCLUSION_VIOLATION = '23P01';
export const PG_UNIQUE_VIOLATION = '23505';
export const PG_DEADLOCK = '40P01';
export const PG_SERIALIZATION_FAILURE = '40001';

export function isConstraintViolation(err: unknown, code: string, constraint?: string): boolean {
  const info = pgErrorInfo(err);
  return info.code === code && (constraint === undefined || info.constraint === constraint);
}
