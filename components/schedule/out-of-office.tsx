'use client';

import { useFieldArray, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { Plus, Trash2 } from 'lucide-react';
import type { z } from 'zod';
import { Button, Field, FieldError, Input } from '@/components/ui';
import type { RulesPutBody } from '@/server/schemas/admin';

type FormIn = z.input<ReturnType<typeof RulesPutBody.omit<{ owner_email: true }>>>;
type Props = {
  control: Control<FormIn>;
  register: UseFormRegister<FormIn>;
  errors: FieldErrors<FormIn>;
  issueAt: (path: string) => string | undefined;
};

/** A week from today as YYYY-MM-DD in the browser's calendar (a starting point the owner edits). */
function aWeekFromToday(): string {
  const d = new Date(Date.now() + 7 * 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

type RowError = { message?: string; start?: { message?: string }; end?: { message?: string }; note?: { message?: string } } | undefined;

/**
 * Out of office on the schedule page (docs/arbitration.md "Out of office"): ranges of local
 * dates, first and last day included, with an optional note. Agents are offered nothing on
 * them and a claim there is refused OUT_OF_OFFICE with the first free time after; the week
 * preview marks the days.
 */
export function OutOfOfficeRanges({ control, register, errors, issueAt }: Props) {
  const { fields, append, remove } = useFieldArray({ control, name: 'out_of_office' });
  return (
    <fieldset className="flex flex-col gap-3">
      <legend className="mb-2 text-base font-semibold">Out of office</legend>
      <p className="text-sm text-muted">Days you are away, first and last day included (in your time zone). Agents are told when you are back.</p>
      {fields.length === 0 && <p className="text-sm text-muted">No time away planned.</p>}
      {fields.map((f, i) => {
        const err = (errors.out_of_office as RowError[] | undefined)?.[i];
        const message =
          err?.start?.message ?? err?.end?.message ?? err?.note?.message ?? err?.message ?? issueAt(`out_of_office[${i}].start`) ?? issueAt(`out_of_office[${i}].end`) ?? issueAt(`out_of_office[${i}]`);
        return (
          <div key={f.id} className="flex flex-col gap-2 rounded-md border border-line p-3" data-testid={`out-of-office-${i}`}>
            <div className="flex flex-wrap items-end gap-3">
              <Field label="First day">
                <Input type="date" className="w-44" {...register(`out_of_office.${i}.start` as 'out_of_office.0.start')} />
              </Field>
              <Field label="Last day">
                <Input type="date" className="w-44" {...register(`out_of_office.${i}.end` as 'out_of_office.0.end')} />
              </Field>
              <Field label="Note (optional)" className="min-w-40 flex-1">
                <Input maxLength={200} {...register(`out_of_office.${i}.note` as 'out_of_office.0.note', { setValueAs: (v: string) => (v ? v : undefined) })} />
              </Field>
              <Button variant="ghost" size="icon" aria-label={`Remove time away ${i + 1}`} onClick={() => remove(i)}>
                <Trash2 aria-hidden />
              </Button>
            </div>
            <FieldError message={message} />
          </div>
        );
      })}
      <div>
        <Button variant="secondary" size="sm" onClick={() => append({ start: aWeekFromToday(), end: aWeekFromToday() })}>
          <Plus aria-hidden /> Time away
        </Button>
      </div>
    </fieldset>
  );
}
