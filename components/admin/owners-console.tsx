'use client';

import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { useTRPC } from '@/app/providers';
import { Alert, Badge, Button, Card, CardContent, CardHeader, CardTitle, Field, Input } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { OwnerCreateBody } from '@/server/schemas/admin';
import { showServerError } from './server-errors';

export type OwnerRow = {
  owner_email: string;
  name: string | null;
  time_zone: string;
  role: 'admin' | 'member';
  can_sign_in: boolean;
  calendars: { type: string; status: string; display_name: string | null; is_primary: boolean }[];
};

const OwnerForm = OwnerCreateBody.extend({ role: z.enum(['admin', 'member']) });

/** Owners: who has calendars here, their role and calendars; add an owner (admin.owners.create, as POST /v1/owners). */
export function OwnersConsole({ owners, timeZones }: { owners: OwnerRow[]; timeZones: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.owners.create.mutationOptions());
  const { register, handleSubmit, setError, formState, reset } = useZodForm(OwnerForm, { defaultValues: { email: '', time_zone: 'UTC', role: 'member' } });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await create.mutateAsync({ ...values, name: values.name || undefined });
      reset();
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', { OWNER_ALREADY_EXISTS: 'email', INVALID_TIME_ZONE: 'time_zone' });
    }
  });
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <ul className="flex flex-col gap-3" aria-label="Owners">
        {owners.map((o) => (
          <li key={o.owner_email} className="rounded-lg border border-line bg-surface p-3 text-sm">
            <div className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{o.name ?? o.owner_email}</span>
              <Badge tone={o.role === 'admin' ? 'accent' : 'neutral'}>{o.role}</Badge>
              {!o.can_sign_in && <Badge tone="warn">no dashboard sign-in yet</Badge>}
            </div>
            <p className="text-muted">
              {o.name ? `${o.owner_email} · ` : ''}
              {o.time_zone}
            </p>
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
          <CardTitle>Add an owner</CardTitle>
        </CardHeader>
        <CardContent>
          <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
            <Field label="Email" error={formState.errors.email?.message}>
              <Input type="email" autoComplete="off" {...register('email')} />
            </Field>
            <Field label="Name (optional)" error={formState.errors.name?.message}>
              <Input autoComplete="off" {...register('name')} />
            </Field>
            <Field label="Time zone" hint="Start typing to search." error={formState.errors.time_zone?.message}>
              <Input list="owner-time-zones" autoComplete="off" {...register('time_zone')} />
            </Field>
            <datalist id="owner-time-zones">
              {timeZones.map((z) => (
                <option key={z} value={z} />
              ))}
            </datalist>
            <fieldset className="flex gap-4 text-sm">
              <legend className="mb-1 font-medium">Role</legend>
              <label className="flex items-center gap-2">
                <input type="radio" value="member" className="size-4" {...register('role')} /> Member
              </label>
              <label className="flex items-center gap-2">
                <input type="radio" value="admin" className="size-4" {...register('role')} /> Admin (this console)
              </label>
            </fieldset>
            {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
            <div>
              <Button type="submit" disabled={formState.isSubmitting}>
                Add owner
              </Button>
            </div>
          </form>
        </CardContent>
      </Card>
    </div>
  );
}
