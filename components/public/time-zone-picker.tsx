'use client';

import { useId } from 'react';
import { controlClasses } from '@/components/ui/control-classes';
import { Globe } from './icons';
import { timeZones, zoneName } from './time';

/** Which zone times are shown in: a native select (hundreds of options stay light and keyboard-friendly). */
export function TimeZonePicker({ value, onChange }: { value: string; onChange: (tz: string) => void }) {
  const id = useId();
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="flex items-center gap-1.5 text-sm font-medium text-fg">
        <Globe className="size-4 text-muted" aria-hidden />
        Your time zone
      </label>
      <select id={id} className={`${controlClasses} h-10`} value={value} onChange={(e) => onChange(e.target.value)} aria-describedby={`${id}-hint`}>
        {timeZones(value).map((tz) => (
          <option key={tz} value={tz}>
            {tz.replaceAll('_', ' ')}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} className="text-xs text-muted">
        Times are shown in {zoneName(value)}.
      </p>
    </div>
  );
}
