'use client';

import { Controller, type Control, type FieldErrors } from 'react-hook-form';
import type { z } from 'zod';
import { Field, Input, Select } from '@/components/ui';
import type { MeetingTypeCreateBody } from '@/server/schemas/publicAdmin';

type Form = z.input<typeof MeetingTypeCreateBody>;
type Video = NonNullable<Form['video']>;

/** A saved type's video as the form edits it: a fixed link keeps its url, a made one has none. */
export function videoFormValue(saved: { provider: Video['provider']; url: string | null } | null | undefined): Video | null {
  if (!saved) return null;
  return saved.provider === 'link' ? { provider: 'link', url: saved.url ?? '' } : { provider: saved.provider };
}

/**
 * The meeting type's video meeting (docs/calendars.md "Video links"): none, Google Meet or
 * Microsoft Teams (made by the owner's connected calendar when booked), or a fixed https link;
 * the domain schema (VideoSettingBody) judges it, its errors show under the fields.
 */
export function VideoField({ control, errors }: { control: Control<Form>; errors: FieldErrors<Form> }) {
  return (
    <Controller
      control={control}
      name="video"
      render={({ field }) => {
        const v = field.value ?? null;
        const choose = (provider: string) => field.onChange(provider === '' ? null : provider === 'link' ? { provider: 'link', url: v?.url ?? '' } : { provider });
        return (
          <>
            <Field
              label="Video meeting"
              hint="Google Meet or Teams: made by your connected calendar when a meeting is booked. Shown to the requester once booked."
              error={errors.video?.provider?.message ?? errors.video?.message}
            >
              <Select value={v?.provider ?? ''} onChange={(e) => choose(e.target.value)} onBlur={field.onBlur} name={field.name} ref={field.ref}>
                <option value="">None</option>
                <option value="google_meet">Google Meet</option>
                <option value="microsoft_teams">Microsoft Teams</option>
                <option value="link">A fixed link (e.g. a personal Zoom room)</option>
              </Select>
            </Field>
            {v?.provider === 'link' && (
              <Field label="Video link" hint="Starts with https://" error={errors.video?.url?.message}>
                <Input type="url" inputMode="url" autoComplete="off" spellCheck={false} value={v.url ?? ''} onChange={(e) => field.onChange({ provider: 'link', url: e.target.value })} onBlur={field.onBlur} />
              </Field>
            )}
          </>
        );
      }}
    />
  );
}
