'use client';

import { useEffect, useState } from 'react';
import { useRouter } from 'next/navigation';
import { MailCheck, Send } from 'lucide-react';
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Badge, Button, Card, CardContent, CardHeader, CardTitle, Field, Input, LocalTime, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { browserTimeZone } from '@/components/ui/time-format';
import { OwnerCreateBody } from '@/server/schemas/admin';
import { LocalTime as LocalTimeText } from '@/server/schemas/common';
import { readServerError, showServerError } from '@/components/ui/server-error';

export type OwnerRow = {
  owner_email: string;
  name: string | null;
  time_zone: string;
  role: 'admin' | 'member';
  can_sign_in: boolean;
  has_password: boolean;
  invited_at: string | null;
  has_working_hours: boolean;
  calendars: { type: string; status: string; display_name: string | null; is_primary: boolean }[];
};

/**
 * The API's owner body, with the weekday hours as three fields: a new owner starts with
 * Mon-Fri 09:00-17:00 (an owner without hours is never offered on public pages,
 * docs/dashboard.md "Owners"); unticked, the owner is created without working hours.
 */
const OwnerForm = OwnerCreateBody.omit({ working_hours: true })
  .extend({ role: z.enum(['admin', 'member']), invite: z.boolean(), weekday_hours: z.boolean(), day_start: LocalTimeText, day_end: LocalTimeText })
  .refine((v) => !v.weekday_hours || v.day_start < v.day_end, { path: ['day_end'], message: 'must be after the start' });
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri'] as const;
const FORM_DEFAULTS = { email: '', time_zone: 'UTC', role: 'member', invite: true, weekday_hours: true, day_start: '09:00', day_end: '17:00' } as const;


type Sent = { sent_to: string; expires_at: string };

function when(iso: string): React.ReactNode {
  return <LocalTime iso={iso} />;
}

/** What an invitation mail did, in words. */
function SentNotice({ sent }: { sent: Sent }) {
  return (
    <Alert tone="ok" data-testid="invitation-sent">
      <MailCheck aria-hidden />
      Invitation sent to {sent.sent_to}. The sign-in link in it works once, until {when(sent.expires_at)}.
    </Alert>
  );
}

/** Send (or re-send) an owner the invitation mail (admin.owners.sendInvitation). */
function InviteButton({ owner, onSent }: { owner: OwnerRow; onSent: (s: Sent) => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const send = useMutation(trpc.admin.owners.sendInvitation.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  return (
    <span className="flex flex-col items-start gap-1">
      <Button
        variant="secondary"
        size="sm"
        aria-label={`${owner.invited_at ? 'Re-send invitation to' : 'Send invitation to'} ${owner.owner_email}`}
        disabled={send.isPending}
        onClick={async () => {
          setError(null);
          try {
            const r = await send.mutateAsync({ email: owner.owner_email });
            onSent(r.invitation);
            router.refresh();
          } catch (err) {
            setError(readServerError(err).message);
          }
        }}
      >
        <Send aria-hidden />
        {send.isPending ? 'Sending…' : owner.invited_at ? 'Re-send invitation' : 'Send invitation'}
      </Button>
      {error && (
        <span role="alert" className="text-xs text-danger">
          {error}
        </span>
      )}
    </span>
  );
}

/** Owners: who has calendars here, their role and calendars; add an owner (admin.owners.create, as POST /v1/owners). */
export function OwnersConsole({ owners, timeZones }: { owners: OwnerRow[]; timeZones: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.owners.create.mutationOptions());
  const invite = useMutation(trpc.admin.owners.invite.mutationOptions());
  const [sent, setSent] = useState<Sent | null>(null);
  const { register, handleSubmit, setError, formState, reset, watch, setValue, getFieldState } = useZodForm(OwnerForm, { defaultValues: FORM_DEFAULTS });
  const inviting = watch('invite');
  const withHours = watch('weekday_hours');
  useEffect(() => {
    if (!getFieldState('time_zone').isDirty) setValue('time_zone', browserTimeZone());
  }, [getFieldState, setValue]);
  const onSubmit = handleSubmit(async ({ invite: withInvitation, weekday_hours, day_start, day_end, ...values }) => {
    setSent(null);
    try {
      const hours = [{ start: day_start, end: day_end }];
      const body = { ...values, name: values.name || undefined, ...(weekday_hours ? { working_hours: Object.fromEntries(WEEKDAYS.map((d) => [d, hours])) } : {}) };
      if (withInvitation) setSent((await invite.mutateAsync(body)).invitation);
      else await create.mutateAsync(body);
      reset({ ...FORM_DEFAULTS, time_zone: values.time_zone });
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', { OWNER_ALREADY_EXISTS: 'email', INVALID_TIME_ZONE: 'time_zone' });
      // Created, but the mail failed: the list shows the owner with "Send invitation" to try again.
      router.refresh();
    }
  });
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <ul className="flex flex-col gap-3" aria-label="Owners">
        {owners.map((o) => (
          <li key={o.owner_email} data-testid={`owner-${o.owner_email}`} className="rounded-lg border border-line bg-surface p-3 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{o.name ?? o.owner_email}</span>
              <Badge tone={o.role === 'admin' ? 'accent' : 'neutral'}>{o.role}</Badge>
              {!o.can_sign_in && <Badge tone="warn">no dashboard sign-in yet</Badge>}
              {o.invited_at && !o.has_password && <Badge tone="neutral">invited {when(o.invited_at)}</Badge>}
              {!o.has_working_hours && <Badge tone="warn">no working hours: not offered on public pages</Badge>}
            </div>
            <p className="text-muted">
              {o.name ? `${o.owner_email} · ` : ''}
              {o.time_zone}
            </p>
            {!o.has_password && (
              <div className="mt-2">
                <InviteButton owner={o} onSent={setSent} />
              </div>
            )}
            <ul className="mt-2 flex flex-wrap gap-2" aria-label={`Calendars of ${o.owner_email}`}>
              {o.calendars.map((c, i) => (
                <li key={i}>
                  <Badge tone={c.status === 'active' ? 'ok' : 'danger'}>
                    {c.display_name ?? c.type}
                    {c.is_primary ? ' (primary)' : ''}: {c.status.replace('_', ' ')}
                  </Badge>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
      <Card className="lg:self-start">
        <CardHeader>
          <CardTitle>Add or invite an owner</CardTitle>
        </CardHeader>
        <CardContent>
          <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
            <Field label="Email" error={formState.errors.email?.message}>
              <Input type="email" autoComplete="off" {...register('email')} />
            </Field>
            <Field label="Name (optional)" error={formState.errors.name?.message}>
              <Input autoComplete="off" {...register('name', { setValueAs: (v: string) => v.trim() || undefined })} />
            </Field>
            <Field label="Time zone" hint="Start typing to search." error={formState.errors.time_zone?.message}>
              <Input list="owner-time-zones" autoComplete="off" {...register('time_zone')} />
            </Field>
            <datalist id="owner-time-zones">
              {timeZones.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <fieldset className="flex flex-col gap-2 text-sm">
              <legend className="mb-1 font-medium">Working hours</legend>
              <label className="flex items-center gap-2">
                <input type="checkbox" className="size-4" {...register('weekday_hours')} /> Monday to Friday
              </label>
              {withHours ? (
                <div className="flex flex-wrap gap-3">
                  <Field label="Working from" error={formState.errors.day_start?.message}>
                    <Input type="time" className="w-32" {...register('day_start')} />
                  </Field>
                  <Field label="Working until" error={formState.errors.day_end?.message}>
                    <Input type="time" className="w-32" {...register('day_end')} />
                  </Field>
                </div>
              ) : (
                <p className="text-xs text-muted">Without working hours agents may book this owner at any time, and public pages offer no time with them until hours are set.</p>
              )}
            </fieldset>
            <fieldset className="flex gap-4 text-sm">
              <legend className="mb-1 font-medium">Role</legend>
              <label className="flex items-center gap-2">
                <input type="radio" value="member" className="size-4" {...register('role')} /> Member
              </label>
              <label className="flex items-center gap-2">
                <input type="radio" value="admin" className="size-4" {...register('role')} /> Admin (this console)
              </label>
            </fieldset>
            <label className="flex items-start gap-2 text-sm">
              <input type="checkbox" className="mt-0.5 size-4" {...register('invite')} />
              <span>
                Email an invitation
                <span className="block text-xs text-muted">A sign-in link to the dashboard that works once, within 72 hours; you can re-send it.</span>
              </span>
            </label>
            {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
            {sent && <SentNotice sent={sent} />}
            <div>
              <Button type="submit" disabled={formState.isSubmitting}>
                {inviting ? 'Add and invite' : 'Add owner'}
              </Button>
            </div>
          </Form>
        </CardContent>
      </Card>
    </div>
  );
}
