import { describe, expect, it } from 'vitest';
import { isConnectionGone, isDatabaseUnavailable } from '@/db/errors';
import { toDomainError } from '@/server/http/envelope';

/** Which failures read as a lost primary (503 service_unavailable), docs/operations.md "High availability". */
const pg = (code: string) => Object.assign(new Error(`pg ${code}`), { code });
const wrapped = (cause: unknown) => Object.assign(new Error('Failed query: ...'), { cause });

describe('a lost database primary', () => {
  it.each(['57P01', '57P02', '57P03', '25006', '08006', '08P01', 'ECONNREFUSED', 'ECONNRESET', 'CONNECTION_CLOSED', 'CONNECT_TIMEOUT'])('%s is unavailable, also wrapped', (code) => {
    expect(isDatabaseUnavailable(pg(code))).toBe(true);
    expect(isDatabaseUnavailable(wrapped(pg(code)))).toBe(true);
  });
  it('several hosts failing (an AggregateError) is unavailable', () => {
    expect(isDatabaseUnavailable(new AggregateError([pg('ECONNREFUSED'), pg('ECONNREFUSED')]))).toBe(true);
  });
  it.each(['23505', '23P01', '40001', '40P01', '22P02'])('%s is the request, not the primary', (code) => {
    expect(isDatabaseUnavailable(wrapped(pg(code)))).toBe(false);
  });
  it('answers 503 service_unavailable with retry_after_seconds; anything else stays internal_error', () => {
    const err = toDomainError(wrapped(pg('57P01')));
    expect(err.code).toBe('service_unavailable');
    expect(err.extra?.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(toDomainError(new Error('boom')).code).toBe('internal_error');
  });
  it('a read-only refusal leaves the connection open; a shutdown or a closed socket does not', () => {
    expect(isConnectionGone(pg('25006'))).toBe(false);
    expect(isConnectionGone(wrapped(pg('57P01')))).toBe(true);
    expect(isConnectionGone(pg('CONNECTION_CLOSED'))).toBe(true);
  });
});
