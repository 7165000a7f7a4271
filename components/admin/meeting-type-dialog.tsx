'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { Pencil, Plus } from 'lucide-react';
import { Controller } from 'react-hook-form';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, Input, Textarea } from '@/components/ui';
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { MeetingTypeCreateBody } from '@/server/schemas/publicAdmin';
import { NativeSelect } from './native-select';
import { showServerError } from './server-errors';

export type MeetingTypeRow = {
  slug: string;
  title: string;
  duration_minutes: number[];
  meeting_class: string;
  attendee_limit: number | null;
  public_preempt_policy: 'inherit' | 'never' | 'preempt_lower';
  effective_preempt_policy: 'never' | 'preempt_lower';
  visibility: 'public' | 'unlisted' | 'audience';
  audience: string | null;
  enabled: boolean;
  published: boolean;
  credential_skips_verification: boolean;
  description: string | null;
  location: string | null;
  min_notice_hours: number;
  book_instantly: boolean;
  host_mode?: 'single' | 'collective' | 'pool';
  host_emails?: string[];
  pool_id?: string | null;
};

/** "a@x.com, b@x.com" as the schema's list (blank: no list). */
const emailList = (v: unknown) => (Array.isArray(v) ? v : String(v ?? '').split(/[\s,;]+/).filter(Boolean));

/** An empty text box clears the field (the schema's `null`), not an empty string it would refuse. */
const textOrNull = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? null : v);

/** Where a refusal whose code names no field belongs (the codes of POST/PATCH .../meeting-types). */
const ERROR_FIELDS = {
  duplicate_slug: 'slug',
  duplicate_public_meeting_type: 'slug',
  INVALID_MEETING_CLASS: 'meeting_class',
  invalid_public_preempt_policy: 'public_preempt_policy',
  not_found: 'audience',
  POOL_NOT_FOUND: 'pool',
} as const;


/**
 * Add a meeting type to a link (admin.publicScheduling.meetingTypes.create,
 * as POST .../meeting-types), or with `existing` change every field of one
 * (.update, as PATCH .../meeting-types/{slug}); refusals show under the field
 * they concern.
 */
export function MeetingTypeDialog({ linkId, alias, classNames, existing }: { linkId: string; alias: string; classNames: string[]; existing?: MeetingTypeRow }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const create = useMutation(trpc.admin.publicScheduling.meetingTypes.create.mutationOptions());
  const update = useMutation(trpc.admin.publicScheduling.meetingTypes.update.mutationOptions());
  const defaults = existing
    ? {
        slug: existing.slug,
        title: existing.title,
        duration_minutes: existing.duration_minutes,
        meeting_class: existing.meeting_class,
        attendee_limit: existing.attendee_limit,
        visibility: existing.visibility,
        audience: existing.audience ?? undefined,
        public_preempt_policy: existing.public_preempt_policy,
        enabled: existing.enabled,
        published: existing.published,
        description: existing.description,
        location: existing.location,
        min_notice_hours: existing.min_notice_hours,
        book_instantly: existing.book_instantly,
        host_mode: existing.host_mode ?? 'single',
        host_emails: existing.host_emails?.length ? existing.host_emails : null,
        pool: existing.pool_id ?? null,
      }
    : {
        slug: '',
        title: '',
        duration_minutes: [30],
        meeting_class: classNames[0] ?? '',
        visibility: 'public' as const,
        public_preempt_policy: 'inherit' as const,
        enabled: true,
        published: true,
        description: null,
        location: null,
        min_notice_hours: 0,
        book_instantly: false,
        host_mode: 'single' as const,
        host_emails: null,
        pool: null,
      };
  const { register, handleSubmit, setError, formState, control, reset, watch } = useZodForm(MeetingTypeCreateBody, { defaultValues: defaults });
  const hostMode = watch('host_mode') ?? 'single';
  const onSubmit = handleSubmit(async (form) => {
    // Only the chosen mode's hosts go out (docs/public-scheduling.md "Several hosts").
    const body = { ...form, host_emails: form.host_mode === 'collective' ? form.host_emails : null, pool: form.host_mode === 'pool' ? form.pool : null };
    try {
      if (existing) await update.mutateAsync({ link_id: linkId, slug: existing.slug, patch: { ...body, attendee_limit: body.attendee_limit ?? null, audience: body.audience ?? null, description: body.description ?? null, location: body.location ?? null } });
      else await create.mutateAsync({ link_id: linkId, body });
      if (!existing) reset();
      setOpen(false);
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', ERROR_FIELDS);
    }
  });
  const onOpenChange = (o: boolean) => {
    // Editing starts from the type as saved.
    if (o && existing) reset(defaults);
    setOpen(o);
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        {existing ? (
          <Button variant="ghost" size="sm" aria-label={`Edit ${existing.title}`}>
            <Pencil aria-hidden /> Edit
          </Button>
        ) : (
          <Button variant="secondary" size="sm" className="self-start">
            <Plus aria-hidden /> Add meeting type
          </Button>
        )}
      </DialogTrigger>
      <DialogContent
        title={existing ? `Edit ${existing.title} on /${alias}` : `New meeting type on /${alias}`}
        description={existing ? 'Every field can change; the same rules as when it was created.' : 'What requesters can propose through this link.'}
      >
        <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label="Title" error={formState.errors.title?.message}>
              <Input autoComplete="off" {...register('title')} />
            </Field>
            <Field label="Slug" hint={`Address: /${alias}/slug`} error={formState.errors.slug?.message}>
              <Input autoComplete="off" spellCheck={false} {...register('slug')} />
            </Field>
            <Field label="Lengths (minutes)" hint="One or more, e.g. 30, 60" error={formState.errors.duration_minutes?.message ?? formState.errors.duration_minutes?.[0]?.message}>
              <Input
                autoComplete="off"
                {...register('duration_minutes', {
                  setValueAs: (v: unknown) => (Array.isArray(v) ? v : String(v).split(/[\s,]+/).filter(Boolean).map(Number)),
                })}
              />
            </Field>
            <Field label="Meeting class" error={formState.errors.meeting_class?.message}>
              <Controller
                control={control}
                name="meeting_class"
                render={({ field }) => (
                  <Select value={field.value} onValueChange={field.onChange}>
                    <SelectTrigger>
                      <SelectValue placeholder="Choose a class" />
                    </SelectTrigger>
                    <SelectContent>
                      {classNames.map((c) => (
                        <SelectItem key={c} value={c}>
                          {c}
                        </SelectItem>
                      ))}
                    </SelectContent>
                  </Select>
                )}
              />
            </Field>
            <Field label="Attendee limit (optional)" hint="People per proposal, counting the requester" error={formState.errors.attendee_limit?.message}>
              <Input type="number" min="1" max="50" {...register('attendee_limit', { setValueAs: (v) => (v === '' || v === null || v === undefined ? null : Number(v)) })} />
            </Field>
            <Field label="Preempt policy" error={formState.errors.public_preempt_policy?.message}>
              <NativeSelect {...register('public_preempt_policy')}>
                <option value="inherit">As the class says</option>
                <option value="never">Never move other meetings</option>
                <option value="preempt_lower">May move lower-priority meetings</option>
              </NativeSelect>
            </Field>
            <Field label="Visibility" error={formState.errors.visibility?.message}>
              <NativeSelect {...register('visibility')}>
                <option value="public">Public (listed)</option>
                <option value="unlisted">Unlisted (by address only)</option>
                <option value="audience">An audience only</option>
              </NativeSelect>
            </Field>
            <Field label="Audience (for audience visibility)" error={formState.errors.audience?.message}>
              <Input autoComplete="off" {...register('audience', { setValueAs: (v) => v || undefined })} />
            </Field>
            <Field label="Description (optional)" hint="Shown on the meeting's public page, before the requester books." error={formState.errors.description?.message} className="sm:col-span-2">
              <Textarea rows={3} {...register('description', { setValueAs: textOrNull })} />
            </Field>
            <Field
              label="Location (optional)"
              hint="A street address, or a video link starting with https://. The requester sees it only once the meeting is booked."
              error={formState.errors.location?.message}
              className="sm:col-span-2"
            >
              <Input autoComplete="off" {...register('location', { setValueAs: textOrNull })} />
            </Field>
            <Field label="Hosts" hint="Who meets the requester" error={formState.errors.host_mode?.message}>
              <NativeSelect {...register('host_mode')}>
                <option value="single">The link&apos;s owner</option>
                <option value="collective">Several people, all of them (collective)</option>
                <option value="pool">One person from a pool</option>
              </NativeSelect>
            </Field>
            {hostMode === 'collective' && (
              <Field
                label="Host emails"
                hint="2 to 20 owners, comma-separated; all of them must be free. The first one's clock lays out the times."
                error={formState.errors.host_emails?.message ?? formState.errors.host_emails?.[0]?.message}
              >
                <Input autoComplete="off" spellCheck={false} {...register('host_emails', { setValueAs: emailList })} />
              </Field>
            )}
            {hostMode === 'pool' && (
              <Field label="Pool" hint="Its name (Pools page); the pool picks who is free, by its weights." error={formState.errors.pool?.message}>
                <Input autoComplete="off" spellCheck={false} {...register('pool', { setValueAs: textOrNull })} />
              </Field>
            )}
            <Field label="Minimum notice (hours)" hint="No suggested time starts sooner than this; 0 for none." error={formState.errors.min_notice_hours?.message}>
              <Input type="number" min="0" max="720" step="1" inputMode="numeric" {...register('min_notice_hours', { valueAsNumber: true })} />
            </Field>
          </div>
          <label className="flex items-start gap-2 text-sm">
            <input type="checkbox" className="mt-0.5 size-4 shrink-0" {...register('book_instantly')} />
            <span>
              <span className="font-medium">Book instantly</span>
              <span className="block text-muted">
                Once the requester confirms their email, a time that is free is booked at once, without your review. A time that would move another meeting still waits
                for you.
              </span>
            </span>
          </label>
          <div className="flex flex-wrap gap-4 text-sm">
            <label className="flex items-center gap-2">
              <input type="checkbox" className="size-4" {...register('enabled')} /> Enabled
            </label>
            <label className="flex items-center gap-2">
              <input type="checkbox" className="size-4" {...register('published')} /> Published
            </label>
          </div>
          {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
          <div className="flex justify-end">
            <Button type="submit" disabled={formState.isSubmitting}>
              {existing ? 'Save changes' : 'Add meeting type'}
            </Button>
          </div>
        </form>
      </DialogContent>
    </Dialog>
  );
}
