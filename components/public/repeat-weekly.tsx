'use client';

import type { UseFormRegisterReturn } from 'react-hook-form';
import { useTranslations } from 'next-intl';
import { z } from 'zod';
import { Alert } from '@/components/ui/alert';
import { buttonClasses } from '@/components/ui/button-classes';
import { Field } from '@/components/ui/field';
import { Input } from '@/components/ui/input';
import { formatViewerSlot } from '@/components/ui/time-format';
import { ProposalSubmitBody } from '@/server/schemas/public';
import { useFormatLocale } from './format-locale';

/**
 * "Repeat weekly for N weeks" on the request form (docs/public-scheduling.md "Repeating weekly"):
 * a checkbox, off by default, and the number of weeks, checked in the browser with the API's own
 * `repeat_weeks` schema capped at the type's most; the page says before sending that every week is
 * booked or none. A refusal naming weeks that are not free lists them in the page's zone.
 */

/** A week of the request, as the API names it (UTC instants). */
export type Week = { start: string; end: string };

/** The form's repeat fields (an empty number box reads as NaN, refused only when `repeat` is on). */
export const REPEAT_SHAPE = { repeat: z.boolean().optional(), weeks: z.number().or(z.nan()).optional() };

/** `weeks` checked only when `repeat` is on, with the API's schema capped at the type's most (`max`; null: not offered). */
export function weeksCheck(max: number | null, message: string) {
  const weeksSchema = ProposalSubmitBody.shape.repeat_weeks.unwrap().max(max ?? 0);
  return (v: { repeat?: boolean; weeks?: number }, ctx: z.RefinementCtx) => {
    if (max !== null && v.repeat && !weeksSchema.safeParse(v.weeks).success) ctx.addIssue({ code: 'custom', path: ['weeks'], message });
  };
}

/** The weeks a `time_unavailable` refusal names as not free (`unavailable_occurrences`), or null. */
export function unavailableWeeksOf(extra: Record<string, unknown>): Week[] | null {
  const list = extra.unavailable_occurrences;
  if (!Array.isArray(list) || !list.length) return null;
  return list.filter((w): w is Week => typeof w?.start === 'string' && typeof w?.end === 'string').map(({ start, end }) => ({ start, end }));
}

export function RepeatWeeklyField({ max, on, checkbox, weeks, error }: { max: number; on: boolean; checkbox: UseFormRegisterReturn; weeks: UseFormRegisterReturn; error?: string }) {
  const t = useTranslations('form');
  return (
    <fieldset className="flex flex-col gap-3 rounded-md border border-line p-3">
      <legend className="px-1 text-sm font-medium">{t('repeatLegend')}</legend>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" className="size-4 shrink-0 accent-accent" {...checkbox} />
        {t('repeat')}
      </label>
      {on && (
        <>
          <Field label={t('repeatWeeks')} hint={t('repeatRange', { max })} error={error}>
            <Input type="number" min={2} max={max} step={1} inputMode="numeric" className="w-28" {...weeks} />
          </Field>
          <p className="text-sm text-muted" data-testid="repeat-all-or-nothing">
            {t('repeatAllOrNothing')}
          </p>
        </>
      )}
    </fieldset>
  );
}

/** The weeks that are not free, each on its own line in the page's zone, and the way back to the times. */
export function UnavailableWeeks({ weeks, tz, onPickAnother }: { weeks: Week[]; tz?: string; onPickAnother?: () => void }) {
  const t = useTranslations('form');
  const locale = useFormatLocale();
  return (
    <Alert tone="danger" data-testid="weeks-not-free">
      <p className="font-medium">{t('weeksNotFree', { count: weeks.length })}</p>
      <ul className="my-2 list-disc ps-5">
        {weeks.map((w) => (
          <li key={w.start} data-start={w.start}>{tz ? formatViewerSlot(w.start, w.end, tz, locale) : w.start}</li>
        ))}
      </ul>
      <p>{t('weeksNotFreeNext')}</p>
      {onPickAnother && (
        <button type="button" className={`${buttonClasses('secondary', 'sm')} mt-2`} onClick={onPickAnother}>
          {t('pickAnother')}
        </button>
      )}
    </Alert>
  );
}
