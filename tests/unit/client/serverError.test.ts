import { describe, expect, it } from 'vitest';
import { TRPCError } from '@trpc/server';
import { firstClause, readServerError } from '@/components/ui/server-error';
import { DomainError } from '@/server/domain/errors';

describe('readServerError (components/ui/server-error.ts)', () => {
  it('reads a tRPC client error: data.domain with its fields and extra', () => {
    const err = Object.assign(new Error('x'), {
      data: { code: 'CONFLICT', domain: { code: 'PREEMPTION_NOT_CONFIRMED', message: 'Would cancel; see displaced', details: { fields: [{ path: 'start', message: 'bad' }] }, extra: { displaced: [{ id: 'b1' }] } } },
    });
    const r = readServerError(err);
    expect(r).toMatchObject({ code: 'PREEMPTION_NOT_CONFIRMED', domain: true, trpcCode: 'CONFLICT', fields: [{ path: 'start', message: 'bad' }] });
    expect(r.extra.displaced).toEqual([{ id: 'b1' }]);
    expect(firstClause(r.message)).toBe('Would cancel.');
  });

  it('reads a server-side caller error: the DomainError is its cause', () => {
    const cause = new DomainError('not_found', 'No such page');
    const r = readServerError(new TRPCError({ code: 'NOT_FOUND', cause }));
    expect(r).toMatchObject({ code: 'not_found', message: 'No such page', domain: true, trpcCode: 'NOT_FOUND', extra: {} });
  });

  it('reads a bare DomainError and anything else as a plain message', () => {
    expect(readServerError(new DomainError('rate_limited', 'Slow down'))).toMatchObject({ code: 'rate_limited', domain: true, trpcCode: undefined });
    expect(readServerError(new TRPCError({ code: 'BAD_REQUEST', message: 'too long' }))).toMatchObject({ code: 'error', message: 'too long', domain: false, trpcCode: 'BAD_REQUEST' });
    expect(readServerError(null)).toMatchObject({ code: 'error', message: 'Something went wrong', domain: false });
  });
});
