import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { plainMessage, timeExample, valueAt } from '@/components/ui/plain-errors';
import { plainZodResolver } from '@/components/ui/form';
import { LocalTime } from '@/server/schemas/common';
import { RulesPutBody } from '@/server/schemas/admin';
import { ApprovalTimesQuery } from '@/server/trpc/schemas';

/** The message a person sees for `value` under `schema` (issue 23 item 4). */
function said(schema: z.ZodType, value: unknown, locale?: string): string {
  const r = schema.safeParse(value);
  if (r.success) throw new Error('expected a refusal');
  return plainMessage(r.error.issues[0], valueAt(value, r.error.issues[0].path), locale);
}

describe('plain validation messages', () => {
  it('never shows the validator text', () => {
    expect(said(z.string().min(1), '')).toBe('Fill this in');
    expect(said(z.string().min(3), 'ab')).toBe('Use at least 3 characters');
    expect(said(z.string().max(5), 'abcdefg')).toBe('Keep it to 5 characters or fewer');
    expect(said(z.number(), Number.NaN)).toBe('Enter a number');
    expect(said(z.number().min(5), 2)).toBe('Enter 5 or more');
    expect(said(z.number().max(24), 30)).toBe('Enter 24 or less');
    expect(said(z.email(), 'nope')).toBe('Enter an email address, such as name@example.com');
    expect(said(z.enum(['a', 'b']), 'c')).toBe('Choose one of the options');
    expect(said(z.array(z.string()).min(1), [])).toBe('Choose at least one');
    for (const m of [said(z.string().min(1), ''), said(z.number(), Number.NaN)]) expect(m).not.toMatch(/expected|received|Too small|NaN/);
  });

  it('keeps a message the schema wrote itself', () => {
    expect(said(ApprovalTimesQuery.shape.duration_minutes, 2)).toBe('At least 5 minutes');
  });

  it('names times in the clock of the input: 12-hour in en-US, 24-hour in en-GB', () => {
    expect(timeExample(17, 30, 'en-US')).toMatch(/^5:30\sPM$/);
    expect(timeExample(17, 30, 'en-GB')).toBe('17:30');
    expect(said(LocalTime, '25:00', 'en-US')).toMatch(/^Enter a time, such as 9:00\sAM or 5:30\sPM$/);
    expect(said(LocalTime, '25:00', 'en-GB')).toBe('Enter a time, such as 09:00 or 17:30');
    expect(said(LocalTime, '')).toBe('Enter a time');
    expect(said(LocalTime, 'x')).not.toContain('HH:MM');
  });

  it('the forms resolver nests plain messages under each field', async () => {
    const schema = RulesPutBody.omit({ owner_email: true });
    const resolve = plainZodResolver(schema);
    const out = await resolve(
      { time_zone: '', working_hours: { mon: [{ start: '9', end: '17:00' }] }, hard_blocks: [], max_daily_meeting_hours: 30 } as never,
      undefined,
      { fields: {}, shouldUseNativeValidation: false } as never,
    );
    const errors = out.errors as Record<string, unknown> & { working_hours: { mon: { start: { message: string } }[] } };
    expect((errors.time_zone as { message: string }).message).toBe('Fill this in');
    expect(errors.working_hours.mon[0].start.message).toMatch(/^Enter a time, such as /);
    expect((errors.max_daily_meeting_hours as { message: string }).message).toBe('Enter 24 or less');
  });
});
