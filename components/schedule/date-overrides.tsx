'use client';

import { useFieldArray, useWatch, type Control, type FieldErrors, type UseFormRegister, type UseFormSetValue } from 'react-hook-form';
import { Plus, Trash2 } from 'lucide-react';
import type { z } from 'zod';
import { Button, Field, FieldError, Input } from '@/components/ui';
import type { RulesPutBody } from '@/server/schemas/admin';

type FormIn = z.input<ReturnType<typeof RulesPutBody.omit<{ owner_email: true }>>>;
type Props = {
  control: Control<FormIn>;
  register: UseFormRegister<FormIn>;
  setValue: UseFormSetValue<FormIn>;
  errors: FieldErrors<FormIn>;
  issueAt: (path: string) => string | undefined;
};

const DEFAULT_RANGE = { start: '09:00', end: '17:00' };

/** A week from today as YYYY-MM-DD in the browser's calendar (a starting point the owner edits). */
function aWeekFromToday(): string {
  const d = new Date(Date.now() + 7 * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/**
 * Date overrides on the schedule page (docs/arbitration.md "Date overrides"): a local date with
 * other hours, or a day off. Each row is a date picker, a "Day off" switch and the date's ranges;
 * the week preview beside the form shows the dates it covers.
 */
export function DateOverrides({ control, register, setValue, errors, issueAt }: Props) {
  const { fields, append, remove } = useFieldArray({ control, name: 'date_overrides' });
  const current = (useWatch({ control, name: 'date_overrides' }) ?? []) as { date: string; working_hours: { start: string; end: string }[] }[];
  return (
    <fieldset className="flex flex-col gap-3">
      <legend className="mb-2 text-base font-semibold">Date overrides</legend>
      <p className="text-sm text-muted">Other hours on one date, or a day off, without changing your week (times in your time zone).</p>
      {fields.length === 0 && <p className="text-sm text-muted">No date overrides.</p>}
      {fields.map((f, i) => {
        const hours = current[i]?.working_hours ?? [];
        const off = hours.length === 0;
        const err = (errors.date_overrides as ({ message?: string; date?: { message?: string } } | undefined)[] | undefined)?.[i];
        const message =
          err?.date?.message ?? err?.message ?? issueAt(`date_overrides[${i}].date`) ?? hours.map((_, r) => issueAt(`date_overrides[${i}].working_hours[${r}]`)).find(Boolean);
        return (
          <div key={f.id} className="flex flex-col gap-2 rounded-md border border-line p-3" data-testid={`date-override-${i}`}>
            <div className="flex flex-wrap items-end gap-3">
              <Field label="Date">
                <Input type="date" className="w-44" {...register(`date_overrides.${i}.date` as 'date_overrides.0.date')} />
              </Field>
              <label className="flex h-10 items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  className="size-4"
                  checked={off}
                  onChange={(e) => setValue(`date_overrides.${i}.working_hours` as 'date_overrides.0.working_hours', e.target.checked ? [] : [DEFAULT_RANGE], { shouldValidate: true })}
                />
                Day off
              </label>
              <Button variant="ghost" size="icon" aria-label={`Remove date override ${i + 1}`} onClick={() => remove(i)}>
                <Trash2 aria-hidden />
              </Button>
            </div>
            {hours.map((_, r) => (
              <div key={r} className="flex items-center gap-2">
                <input
                  type="time"
                  aria-label={`Override ${i + 1} range ${r + 1} start`}
                  className="h-10 rounded-md border border-line bg-surface px-2 text-sm"
                  {...register(`date_overrides.${i}.working_hours.${r}.start` as 'date_overrides.0.working_hours.0.start')}
                />
                <span aria-hidden>–</span>
                <input
                  type="time"
                  aria-label={`Override ${i + 1} range ${r + 1} end`}
                  className="h-10 rounded-md border border-line bg-surface px-2 text-sm"
                  {...register(`date_overrides.${i}.working_hours.${r}.end` as 'date_overrides.0.working_hours.0.end')}
                />
              </div>
            ))}
            <FieldError message={message} />
          </div>
        );
      })}
      <div>
        <Button variant="secondary" size="sm" onClick={() => append({ date: aWeekFromToday(), working_hours: [] })}>
          <Plus aria-hidden /> Date override
        </Button>
      </div>
    </fieldset>
  );
}
