'use client';

import { useEffect, useMemo, useState } from 'react';
import { useFieldArray, useWatch, type Control, type UseFormRegister, type FieldErrors } from 'react-hook-form';
import { keepPreviousData, skipToken, useMutation, useQuery } from '@tanstack/react-query';
import { Plus, Trash2 } from 'lucide-react';
import type { z } from 'zod';
import { useTRPC } from '@/components/trpc-provider';
import { readServerError, showServerError } from '@/components/ui/server-error';
import { Alert, Button, Field, FieldError, Input, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { RulesPutBody } from '@/server/schemas/admin';
import { WeekPreview, type PreviewDay } from './week-preview';
import { nextRange } from './next-range';
import { DateOverrides } from './date-overrides';
import { OutOfOfficeRanges } from './out-of-office';

/** The same body PUT /v1/schedule-rules validates, without owner_email (always the signed-in owner). */
const ScheduleRulesForm = RulesPutBody.omit({ owner_email: true });
type FormIn = z.input<typeof ScheduleRulesForm>;

const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const;
type Day = (typeof DAYS)[number][0];

type ScheduleInitial = {
  time_zone: string;
  working_hours: Partial<Record<Day, { start: string; end: string }[]>> | null;
  hard_blocks: NonNullable<FormIn['hard_blocks']>;
  max_daily_meeting_hours: number | null;
  buffer_external_events: boolean;
  date_overrides: NonNullable<FormIn['date_overrides']>;
  out_of_office: NonNullable<FormIn['out_of_office']>;
};
type Preview = { days: PreviewDay[]; time_zone: string; issues: { path: string; message: string }[]; hard_block_summaries: string[] };

const DEFAULT_RANGE = { start: '09:00', end: '17:00' };

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * "My schedule": time zone, working hours (several ranges per day; a day
 * without ranges is a day off), hard blocks, daily meeting limit. The week
 * preview asks the server (schedule.preview) as the form changes, so what
 * agents would be offered is visible before saving; saving is schedule.put
 * (the same domain call as PUT /v1/schedule-rules).
 */
export function ScheduleForm({ initial, initialPreview, timeZones }: { initial: ScheduleInitial; initialPreview: Preview; timeZones: string[] }) {
  const trpc = useTRPC();
  const defaults: FormIn = {
    time_zone: initial.time_zone,
    working_hours: Object.fromEntries(DAYS.map(([d]) => [d, initial.working_hours ? (initial.working_hours[d] ?? []) : ['sat', 'sun'].includes(d) ? [] : [DEFAULT_RANGE]])),
    hard_blocks: initial.hard_blocks,
    max_daily_meeting_hours: initial.max_daily_meeting_hours,
    buffer_external_events: initial.buffer_external_events,
    date_overrides: initial.date_overrides,
    out_of_office: initial.out_of_office,
  };
  const form = useZodForm(ScheduleRulesForm, { defaultValues: defaults, mode: 'onChange' });
  const { control, register, handleSubmit, setError, setValue, formState } = form;
  const [saved, setSaved] = useState<string | null>(null);
  const watched = useWatch({ control });
  const draft = useDebounced(JSON.stringify(watched), 250);
  const parsed = useMemo(() => ScheduleRulesForm.safeParse(JSON.parse(draft)), [draft]);
  const preview = useQuery(
    trpc.schedule.preview.queryOptions(parsed.success ? parsed.data : skipToken, { placeholderData: keepPreviousData }),
  );
  const shown = preview.data ?? initialPreview;
  const issueAt = (path: string) => shown.issues.find((i) => i.path === path)?.message;
  const save = useMutation(trpc.schedule.put.mutationOptions());

  const onSubmit = handleSubmit(async (values) => {
    setSaved(null);
    try {
      await save.mutateAsync(values);
      setSaved('Saved. Agents are offered times under these rules from now on.');
    } catch (err) {
      // Each refusal goes under the field it names; the form keeps every edit, so nothing is typed twice.
      const d = readServerError(err);
      if (d.fields.length) {
        showServerError(err, setError, 'root');
        setError('root', { type: 'server', message: 'Not saved: fix what is marked above and save again. Your other changes are still here.' });
      } else showServerError(err, setError, 'root');
    }
  });

  return (
    <Form onSubmit={onSubmit} noValidate className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <div className="flex flex-col gap-6">
        {initial.working_hours === null && (
          <Alert tone="warn">Working hours are not configured yet, so agents can be offered any time. The hours below apply once you save.</Alert>
        )}
        <Field label="Time zone" hint="Your working hours and blocks are in this zone. Start typing to search." error={formState.errors.time_zone?.message ?? issueAt('time_zone')}>
          <Input list="time-zones" autoComplete="off" {...register('time_zone')} />
        </Field>
        <datalist id="time-zones">
          {timeZones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>

        <fieldset className="flex flex-col gap-3">
          <legend className="mb-2 text-base font-semibold">Working hours</legend>
          <p className="text-sm text-muted">Untick a day to make it a day off. A day can have several ranges (for example around lunch).</p>
          {DAYS.map(([day, name]) => (
            <DayRanges key={day} day={day} name={name} control={control} register={register} errors={formState.errors} issueAt={issueAt} />
          ))}
        </fieldset>

        <DateOverrides control={control} register={register} setValue={setValue} errors={formState.errors} issueAt={issueAt} />

        <OutOfOfficeRanges control={control} register={register} errors={formState.errors} issueAt={issueAt} />

        <HardBlocks control={control} register={register} errors={formState.errors} issueAt={issueAt} summaries={shown.hard_block_summaries} />

        <Field
          label="Maximum meeting hours per day"
          hint="Leave empty for no limit. Agents are not offered time that would go over it."
          error={formState.errors.max_daily_meeting_hours?.message ?? issueAt('max_daily_meeting_hours')}
          className="max-w-xs"
        >
          <Input type="number" inputMode="decimal" step="0.5" min="0" max="24" {...register('max_daily_meeting_hours', { setValueAs: (v) => (v === '' || v === null ? null : Number(v)) })} />
        </Field>

        <label className="flex items-start gap-2 text-sm">
          <input type="checkbox" className="mt-0.5 size-4 shrink-0" {...register('buffer_external_events')} />
          <span>
            <span className="font-medium">Keep buffers around calendar events too</span>
            <span className="block text-muted">
              Meetings whose class or type keeps time free before or after them also keep it free next to events from your connected calendars. Off: buffers only
              keep meetings booked here apart.
            </span>
          </span>
        </label>

        {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
        {saved && <Alert tone="ok">{saved}</Alert>}
        <div>
          <Button type="submit" disabled={formState.isSubmitting}>
            {formState.isSubmitting ? 'Saving…' : 'Save schedule'}
          </Button>
        </div>
      </div>
      <aside className="order-first lg:sticky lg:top-4 lg:order-none lg:self-start">
        <div className="rounded-lg border border-line bg-surface p-4">
          <WeekPreview days={shown.days} timeZone={shown.time_zone} pending={preview.isFetching} />
          {!parsed.success && <p className="mt-2 text-xs text-muted">The preview waits until the form is valid.</p>}
        </div>
      </aside>
    </Form>
  );
}

type RowProps = {
  control: Control<FormIn>;
  register: UseFormRegister<FormIn>;
  errors: FieldErrors<FormIn>;
  issueAt: (path: string) => string | undefined;
};

function DayRanges({ day, name, control, register, errors, issueAt }: RowProps & { day: Day; name: string }) {
  const { fields, append, remove, replace } = useFieldArray({ control, name: `working_hours.${day}` as 'working_hours.mon' });
  const current = (useWatch({ control, name: `working_hours.${day}` as 'working_hours.mon' }) ?? []) as { start: string; end: string }[];
  const proposal = nextRange(current);
  const working = fields.length > 0;
  const dayErrors = (errors.working_hours as Record<string, unknown> | undefined)?.[day] as
    | ({ message?: string; start?: { message?: string }; end?: { message?: string } } | undefined)[]
    | undefined;
  return (
    <div className="flex flex-col gap-2 rounded-md border border-line p-3 sm:flex-row sm:items-start">
      <label className="flex h-10 w-36 shrink-0 items-center gap-2 text-sm font-medium">
        <input type="checkbox" className="size-4" checked={working} onChange={(e) => replace(e.target.checked ? [DEFAULT_RANGE] : [])} />
        {name}
      </label>
      <div className="flex flex-1 flex-col gap-2">
        {!working && <p className="flex h-10 items-center text-sm text-muted">Day off</p>}
        {fields.map((f, i) => {
          const message = dayErrors?.[i]?.message ?? dayErrors?.[i]?.start?.message ?? dayErrors?.[i]?.end?.message ?? issueAt(`working_hours.${day}[${i}]`);
          const errId = `wh-${day}-${i}-error`;
          const aria = message ? { 'aria-invalid': true as const, 'aria-describedby': errId } : {};
          return (
            <div key={f.id} className="flex flex-col gap-1">
              <div className="flex items-center gap-2">
                <input
                  type="time"
                  aria-label={`${name} range ${i + 1} start`}
                  className="h-10 rounded-md border border-line bg-surface px-2 text-sm aria-[invalid=true]:border-danger"
                  {...aria}
                  {...register(`working_hours.${day}.${i}.start` as 'working_hours.mon.0.start')}
                />
                <span aria-hidden>–</span>
                <input
                  type="time"
                  aria-label={`${name} range ${i + 1} end`}
                  className="h-10 rounded-md border border-line bg-surface px-2 text-sm aria-[invalid=true]:border-danger"
                  {...aria}
                  {...register(`working_hours.${day}.${i}.end` as 'working_hours.mon.0.end')}
                />
                <Button variant="ghost" size="icon" aria-label={`Remove ${name} range ${i + 1}`} onClick={() => remove(i)}>
                  <Trash2 aria-hidden />
                </Button>
              </div>
              <FieldError id={errId} message={message} />
            </div>
          );
        })}
        {working && (
          <div>
            <Button variant="ghost" size="sm" disabled={!proposal} onClick={() => proposal && append(proposal)}>
              <Plus aria-hidden /> Add range to {name}
            </Button>
            {!proposal && <span className="ml-2 text-xs text-muted">The day is full.</span>}
          </div>
        )}
      </div>
    </div>
  );
}

function HardBlocks({ control, register, errors, issueAt, summaries }: RowProps & { summaries: string[] }) {
  const { fields, append, remove } = useFieldArray({ control, name: 'hard_blocks' });
  return (
    <fieldset className="flex flex-col gap-3">
      <legend className="mb-2 text-base font-semibold">Hard blocks</legend>
      <p className="text-sm text-muted">Times no agent may ever book, even inside working hours: a weekly range, or a recurring rule (RFC 5545 RRULE).</p>
      {fields.length === 0 && <p className="text-sm text-muted">No hard blocks. Add one for lunch, school runs or focus time.</p>}
      {fields.map((f, i) => {
        // The kind is fixed when the block is added (the field array item keeps its first value).
        const weekly = 'days' in f;
        const err = (errors.hard_blocks as ({ message?: string } & Record<string, { message?: string }>)[] | undefined)?.[i];
        const nested = Object.values(err ?? {}).find((e): e is { message: string } => typeof e === 'object' && !!e && typeof e.message === 'string');
        const message = (typeof err?.message === 'string' ? err.message : undefined) ?? nested?.message ?? issueAt(`hard_blocks[${i}]`);
        return (
          <div key={f.id} className="flex flex-col gap-3 rounded-md border border-line p-3" data-testid={`hard-block-${i}`}>
            <div className="flex items-start justify-between gap-2">
              <p className="text-sm font-medium" aria-live="polite">
                {summaries[i] ?? (weekly ? 'Weekly block' : 'Recurring block')}
              </p>
              <Button variant="ghost" size="icon" aria-label={`Remove hard block ${i + 1}`} onClick={() => remove(i)}>
                <Trash2 aria-hidden />
              </Button>
            </div>
            {weekly ? (
              <>
                <fieldset className="flex flex-wrap gap-x-3 gap-y-1">
                  <legend className="mb-1 text-sm">Days</legend>
                  {DAYS.map(([d, name]) => (
                    <label key={d} className="flex items-center gap-1 text-sm">
                      <input type="checkbox" value={d} className="size-4" {...register(`hard_blocks.${i}.days` as 'hard_blocks.0.days')} />
                      {name.slice(0, 3)}
                    </label>
                  ))}
                </fieldset>
                <div className="flex flex-wrap items-end gap-3">
                  <Field label="From">
                    <Input type="time" className="w-32" {...register(`hard_blocks.${i}.start` as 'hard_blocks.0.start')} />
                  </Field>
                  <Field label="To">
                    <Input type="time" className="w-32" {...register(`hard_blocks.${i}.end` as 'hard_blocks.0.end')} />
                  </Field>
                  <Field label="Label" className="min-w-40 flex-1">
                    <Input {...register(`hard_blocks.${i}.label` as 'hard_blocks.0.label', { setValueAs: (v) => v || undefined })} />
                  </Field>
                </div>
              </>
            ) : (
              <div className="grid gap-3 sm:grid-cols-2">
                <Field label="Rule (RRULE)" hint="e.g. FREQ=MONTHLY;BYDAY=2TU for every 2nd Tuesday">
                  <Input {...register(`hard_blocks.${i}.rrule` as 'hard_blocks.0.rrule')} />
                </Field>
                <Field label="First occurrence (your local time)">
                  <Input type="datetime-local" {...register(`hard_blocks.${i}.dtstart` as 'hard_blocks.0.dtstart')} />
                </Field>
                <Field label="Length in minutes">
                  <Input type="number" min="1" max="1440" {...register(`hard_blocks.${i}.duration_minutes` as 'hard_blocks.0.duration_minutes', { valueAsNumber: true })} />
                </Field>
                <Field label="Label">
                  <Input {...register(`hard_blocks.${i}.label` as 'hard_blocks.0.label', { setValueAs: (v) => v || undefined })} />
                </Field>
              </div>
            )}
            <FieldError message={message} />
          </div>
        );
      })}
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" size="sm" onClick={() => append({ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '12:00', end: '13:00' })}>
          <Plus aria-hidden /> Weekly block
        </Button>
        <Button variant="secondary" size="sm" onClick={() => append({ rrule: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', dtstart: nextDateAt('14:00'), duration_minutes: 60 })}>
          <Plus aria-hidden /> Recurring block
        </Button>
      </div>
    </fieldset>
  );
}

/** Tomorrow at a local time, as YYYY-MM-DDTHH:MM (a starting point the owner edits). */
function nextDateAt(hhmm: string): string {
  const d = new Date(Date.now() + 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${hhmm}`;
}
