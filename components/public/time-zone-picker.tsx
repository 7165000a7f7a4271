'use client';

import { useId } from 'react';
import { useTranslations } from 'next-intl';
import { useFormatLocale } from './format-locale';
import { Select } from '@/components/ui/select';
import { Globe } from '@/components/ui/icons';
import { timeZones, zoneName } from '@/components/ui/time-format';

/** Which zone times are shown in: the one Select, native (hundreds of options stay light and keyboard-friendly). */
export function TimeZonePicker({ value, onChange }: { value: string; onChange: (tz: string) => void }) {
  const id = useId();
  const t = useTranslations('zone');
  const locale = useFormatLocale();
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="flex items-center gap-1.5 text-sm font-medium text-fg">
        <Globe className="size-4 text-muted" aria-hidden />
        {t('label')}
      </label>
      <Select id={id} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={`${id}-hint`}>
        {timeZones(value).map((tz) => (
          <option key={tz} value={tz}>
            {tz.replaceAll('_', ' ')}
          </option>
        ))}
      </Select>
      <p id={`${id}-hint`} className="text-xs text-muted">
        {t('shown', { zone: zoneName(value, undefined, locale) })}
      </p>
    </div>
  );
}
