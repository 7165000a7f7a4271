'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { Pencil, Plus } from 'lucide-react';
import { Controller } from 'react-hook-form';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Button, Dialog, DialogContent, DialogTrigger, Field, Input, Select, Textarea, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { MeetingTypeCreateBody } from '@/server/schemas/publicAdmin';
import { showServerError } from '@/components/ui/server-error';
import { HostPicker } from './host-picker';
import { VideoField, videoFormValue } from './video-field';

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
  video?: { provider: 'google_meet' | 'microsoft_teams' | 'link'; url: string | null } | null;
  min_notice_hours: number;
  buffer_before_minutes?: number;
  buffer_after_minutes?: number;
  reminder_offsets_minutes?: number[] | null;
  book_instantly: boolean;
  repeat_weekly_max_weeks?: number | null;
  host_mode?: 'single' | 'collective' | 'pool';
  host_emails?: string[];
  pool_id?: string | null;
};


/** "1440, 60" as minutes; an empty box is null (the meeting class's reminders); what is not a number stays as NaN for the schema to refuse. */
function offsetsOrNull(text: unknown): number[] | null {
  if (Array.isArray(text)) return text.map(Number);
  const parts = String(text ?? '').split(/[\s,]+/).filter(Boolean);
  return parts.length ? parts.map(Number) : null;
}

/** An empty number box is null (repetition not offered); anything else a number for the schema to check. */
const numberOrNull = (v: unknown) => (v === '' || v === null || v === undefined ? null : Number(v));

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


/** Who may host a type: the customer's owners (collective) and pools. */
export type HostChoices = { owners: string[]; pools: { pool_id: string; name: string }[] };

/** A title as a slug: "Intro call (30')" -> "intro-call-30" (lowercase letters, digits and inner hyphens, at most 64). */
function slugOf(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 64)
    .replace(/^-+|-+$/g, '');
}

/**
 * Add a meeting type to a link (admin.publicScheduling.meetingTypes.create,
 * as POST .../meeting-types), or with `existing` change every field of one
 * (.update, as PATCH .../meeting-types/{slug}); refusals show under the field
 * they concern.
 */
export function MeetingTypeDialog({ linkId, alias, classNames, hostChoices, existing }: { linkId: string; alias: string; classNames: string[]; hostChoices: HostChoices; existing?: MeetingTypeRow }) {
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
        video: videoFormValue(existing.video),
        min_notice_hours: existing.min_notice_hours,
        buffer_before_minutes: existing.buffer_before_minutes ?? 0,
        buffer_after_minutes: existing.buffer_after_minutes ?? 0,
        reminder_offsets_minutes: existing.reminder_offsets_minutes ?? null,
        book_instantly: existing.book_instantly,
        repeat_weekly_max_weeks: existing.repeat_weekly_max_weeks ?? null,
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
        video: null,
        min_notice_hours: 0,
        buffer_before_minutes: 0,
        buffer_after_minutes: 0,
        reminder_offsets_minutes: null,
        book_instantly: false,
        repeat_weekly_max_weeks: null,
        host_mode: 'single' as const,
        host_emails: null,
        pool: null,
      };
  const { register, handleSubmit, setError, formState, control, reset, watch, setValue, getFieldState } = useZodForm(MeetingTypeCreateBody, { defaultValues: defaults });
  const hostMode = watch('host_mode') ?? 'single';
  const slug = watch('slug');
  // A new type's slug follows its title until the admin types one of their own.
  const titleField = register('title', {
    onChange: (e: { target: { value: string } }) => {
      if (!existing && !getFieldState('slug').isDirty) setValue('slug', slugOf(e.target.value), { shouldValidate: formState.isSubmitted });
    },
  });
  const onSubmit = handleSubmit(async (form) => {
    // Only the chosen mode's hosts go out (docs/public-scheduling.md "Several hosts").
    const body = { ...form, host_emails: form.host_mode === 'collective' ? form.host_emails : null, pool: form.host_mode === 'pool' ? form.pool : null };
    try {
      if (existing) await update.mutateAsync({ link_id: linkId, slug: existing.slug, patch: { ...body, attendee_limit: body.attendee_limit ?? null, audience: body.audience ?? null, description: body.description ?? null, location: body.location ?? null, video: body.video ?? null } });
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
        <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label="Title" error={formState.errors.title?.message}>
              <Input autoComplete="off" {...titleField} />
            </Field>
            <Field label="Slug" hint={`Address: /${alias}/${slug || 'slug'}`} error={formState.errors.slug?.message}>
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
                  <Select value={field.value ?? ''} onChange={(e) => field.onChange(e.target.value)} onBlur={field.onBlur} name={field.name} ref={field.ref} placeholder="Choose a class">
                    {classNames.map((c) => (
                      <option key={c} value={c}>
                        {c}
                      </option>
                    ))}
                  </Select>
                )}
              />
            </Field>
            <Field label="Attendee limit (optional)" hint="People per proposal, counting the requester" error={formState.errors.attendee_limit?.message}>
              <Input type="number" min="1" max="50" {...register('attendee_limit', { setValueAs: (v) => (v === '' || v === null || v === undefined ? null : Number(v)) })} />
            </Field>
            <Field label="Preempt policy" error={formState.errors.public_preempt_policy?.message}>
              <Select {...register('public_preempt_policy')}>
                <option value="inherit">As the class says</option>
                <option value="never">Never move other meetings</option>
                <option value="preempt_lower">May move lower-priority meetings</option>
              </Select>
            </Field>
            <Field label="Visibility" error={formState.errors.visibility?.message}>
              <Select {...register('visibility')}>
                <option value="public">Public (listed)</option>
                <option value="unlisted">Unlisted (by address only)</option>
                <option value="audience">An audience only</option>
              </Select>
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
            <VideoField control={control} errors={formState.errors} />
            <Field label="Hosts" hint="Who meets the requester" error={formState.errors.host_mode?.message}>
              <Select {...register('host_mode')}>
                <option value="single">The link&apos;s owner</option>
                <option value="collective">Several people, all of them (collective)</option>
                <option value="pool">One person from a pool</option>
              </Select>
            </Field>
            {hostMode === 'collective' && (
              <fieldset className="flex flex-col gap-1 sm:col-span-2">
                <legend className="text-sm font-medium">Host owners</legend>
                <p className="text-xs text-muted">2 to 20 owners; all of them must be free. The first one ticked lays out the times in their clock.</p>
                <Controller
                  control={control}
                  name="host_emails"
                  render={({ field }) => <HostPicker owners={hostChoices.owners} value={field.value ?? null} onChange={field.onChange} />}
                />
                {(formState.errors.host_emails?.message ?? formState.errors.host_emails?.[0]?.message) && (
                  <p role="alert" className="text-xs text-danger">
                    {formState.errors.host_emails?.message ?? formState.errors.host_emails?.[0]?.message}
                  </p>
                )}
              </fieldset>
            )}
            {hostMode === 'pool' && (
              <Field label="Pool" hint="The pool picks who is free, by its weights (Pools page)." error={formState.errors.pool?.message}>
                <Select {...register('pool', { setValueAs: textOrNull })}>
                  <option value="">Choose a pool</option>
                  {hostChoices.pools.map((p) => (
                    <option key={p.pool_id} value={p.pool_id}>
                      {p.name}
                    </option>
                  ))}
                </Select>
              </Field>
            )}
            <Field label="Minimum notice (hours)" hint="No suggested time starts sooner than this; 0 for none." error={formState.errors.min_notice_hours?.message}>
              <Input type="number" min="0" max="720" step="1" inputMode="numeric" {...register('min_notice_hours', { valueAsNumber: true })} />
            </Field>
            <Field label="Free before (minutes)" hint="Kept free before each meeting: 0 to 240." error={formState.errors.buffer_before_minutes?.message}>
              <Input type="number" min="0" max="240" step="5" inputMode="numeric" {...register('buffer_before_minutes', { valueAsNumber: true })} />
            </Field>
            <Field label="Free after (minutes)" hint="Kept free after each meeting: 0 to 240." error={formState.errors.buffer_after_minutes?.message}>
              <Input type="number" min="0" max="240" step="5" inputMode="numeric" {...register('buffer_after_minutes', { valueAsNumber: true })} />
            </Field>
            <Field
              label="Reminders (minutes before)"
              hint="e.g. 1440, 60: attendees are mailed a day and an hour before. At most 5, each 5 to 10080. Empty: the meeting class's reminders."
              error={formState.errors.reminder_offsets_minutes?.message ?? formState.errors.reminder_offsets_minutes?.find?.((e) => e)?.message}
            >
              <Input inputMode="numeric" autoComplete="off" {...register('reminder_offsets_minutes', { setValueAs: offsetsOrNull })} />
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
          <Field
            label="Repeat weekly for up to (weeks)"
            hint="Requesters may ask for the meeting every week at the same time, for 2 up to this many weeks (at most 52), booked all together or not at all. Empty: not offered."
            error={formState.errors.repeat_weekly_max_weeks?.message}
          >
            <Input type="number" min="2" max="52" step="1" inputMode="numeric" {...register('repeat_weekly_max_weeks', { setValueAs: numberOrNull })} />
          </Field>
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
        </Form>
      </DialogContent>
    </Dialog>
  );
}
