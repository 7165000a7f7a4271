'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { KeyRound } from 'lucide-react';
import { z } from 'zod';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Badge, Button, Card, CardContent, CardDescription, CardHeader, CardTitle, Field, Input, LocalTime, Select, Textarea, Form } from '@/components/ui';
import { formatDayMonth } from '@/components/ui/time-format';
import { useZodForm } from '@/components/ui/form';
import { AllocationCreateBody, AudienceCreateBody, IdentityCreateBody } from '@/server/schemas/publicAdmin';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { SecretOnceDialog } from './secret-once-dialog';
import { readServerError, showServerError } from '@/components/ui/server-error';

type Identity = { identity_id: string; email: string; domain: string | null };
type Credential = { credential_id: string; identity_id: string; prefix: string; created_at: string; revoked_at: string | null };
type Audience = { audience_id: string; name: string; members: ({ email: string } | { domain: string })[] };
type AllocationUsage = { used: number; limit: number; period_start: string; period_end: string; time_zone: string };
type Allocation = { allocation_id: string; link_id: string; slug: string; audience: string | null; limit: number; period: 'day' | 'week' | 'month'; usage: AllocationUsage | null };

const PERIOD_WORD = { day: 'today', week: 'this week', month: 'this month' } as const;

/** The current period in the owner's zone, e.g. "24 Nov – 30 Nov" (the end is exclusive: its last day is shown). */
function periodLabel(u: AllocationUsage): string {
  const first = formatDayMonth(u.period_start, u.time_zone);
  const last = formatDayMonth(new Date(Date.parse(u.period_end) - 1).toISOString(), u.time_zone);
  return first === last ? first : `${first} – ${last}`;
}

/** Used of limit in the current period, as words and a bar (the numbers come from admin.requesters.allocations.list). */
function UsageMeter({ a }: { a: Allocation }) {
  const u = a.usage;
  if (!u) return null;
  const full = u.used >= u.limit;
  const pct = Math.min(100, Math.round((u.used / Math.max(1, u.limit)) * 100));
  return (
    <span className="flex w-full flex-col gap-1" data-testid={`allocation-usage-${a.slug}`}>
      <span className={full ? 'font-medium text-danger' : 'text-muted'}>
        {u.used} of {u.limit} used {PERIOD_WORD[a.period]} ({periodLabel(u)}, {u.time_zone}){full ? ': full, new requests are refused' : ''}
      </span>
      <span aria-hidden className="h-1.5 w-full max-w-xs overflow-hidden rounded-full bg-surface-2">
        <span className={`block h-full ${full ? 'bg-danger' : 'bg-accent'}`} style={{ width: `${pct}%` }} />
      </span>
    </span>
  );
}
type TypeChoice = { link_id: string; alias: string; slug: string; title: string };

const when = (iso: string) => <LocalTime iso={iso} />;

/** Requester identities with credentials, audiences and allocations (admin.requesters.*). */
export function RequestersConsole(props: { identities: Identity[]; credentials: Credential[]; audiences: Audience[]; allocations: Allocation[]; types: TypeChoice[] }) {
  return (
    <div className="flex flex-col gap-6">
      <IdentitiesCard identities={props.identities} credentials={props.credentials} />
      <div className="grid gap-6 lg:grid-cols-2">
        <AudiencesCard audiences={props.audiences} />
        <AllocationsCard allocations={props.allocations} audiences={props.audiences} types={props.types} />
      </div>
    </div>
  );
}

function IdentitiesCard({ identities, credentials }: { identities: Identity[]; credentials: Credential[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.requesters.identities.create.mutationOptions());
  const mint = useMutation(trpc.admin.requesters.identities.mintCredential.mutationOptions());
  const revoke = useMutation(trpc.admin.requesters.identities.revokeCredential.mutationOptions());
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const form = useZodForm(IdentityCreateBody, { defaultValues: { email: '' } });
  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await create.mutateAsync(values);
      form.reset();
      router.refresh();
    } catch (err) {
      showServerError(err, form.setError, 'email');
    }
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle>Requester identities</CardTitle>
        <CardDescription>Known requesters (for example partners&apos; assistants). A credential lets their software propose without verifying by email each time.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {identities.length === 0 ? (
          <p className="text-sm text-muted">No identities yet. Add a requester&apos;s email, then mint a credential and send it to them.</p>
        ) : (
          <ul className="flex flex-col gap-3" aria-label="Identities">
            {identities.map((i) => (
              <li key={i.identity_id} className="rounded-md border border-line p-3 text-sm" data-testid={`identity-${i.email}`}>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <span className="font-medium">
                    {i.email} {i.domain && <Badge tone="ok">{i.domain}</Badge>}
                  </span>
                  <Button
                    size="sm"
                    variant="secondary"
                    onClick={async () => {
                      setError(null);
                      try {
                        setSecret((await mint.mutateAsync({ identity_id: i.identity_id })).requester_credential);
                      } catch (err) {
                        setError(readServerError(err).message);
                      }
                    }}
                  >
                    <KeyRound aria-hidden /> Mint credential
                  </Button>
                </div>
                <ul className="mt-2 flex flex-col gap-1">
                  {credentials
                    .filter((c) => c.identity_id === i.identity_id)
                    .map((c) => (
                      <li key={c.credential_id} className="flex flex-wrap items-center justify-between gap-2">
                        <span>
                          <span className="font-mono">{c.prefix}…</span> <span className="text-xs text-muted">created {when(c.created_at)}</span>
                        </span>
                        {c.revoked_at ? (
                          <Badge>Revoked {when(c.revoked_at)}</Badge>
                        ) : (
                          <ConfirmButton
                            label={`Revoke credential ${c.prefix}`}
                            title="Revoke this credential?"
                            description="Proposals sent with it are refused from now on. This cannot be undone."
                            confirmLabel="Revoke credential"
                            onConfirm={async () => {
                              await revoke.mutateAsync({ identity_id: i.identity_id, credential_id: c.credential_id });
                              router.refresh();
                            }}
                          >
                            Revoke
                          </ConfirmButton>
                        )}
                      </li>
                    ))}
                </ul>
              </li>
            ))}
          </ul>
        )}
        {error && <Alert tone="danger">{error}</Alert>}
        <Form onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-2">
          <Field label="Requester email" className="min-w-48 flex-1" error={form.formState.errors.email?.message}>
            <Input type="email" autoComplete="off" {...form.register('email')} />
          </Field>
          <Button type="submit" variant="secondary" disabled={form.formState.isSubmitting}>
            Add identity
          </Button>
        </Form>
        <SecretOnceDialog
          title="The requester's credential"
          secret={secret}
          warning="Send it to the requester over a safe channel. Anyone with it can propose as them."
          onClose={() => {
            setSecret(null);
            router.refresh();
          }}
        />
      </CardContent>
    </Card>
  );
}

/** The form holds members as text, one email or domain per line; the schema checks the list it becomes. */
const AudienceForm = AudienceCreateBody.extend({ members: z.string().max(100_000) });

function AudiencesCard({ audiences }: { audiences: Audience[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.requesters.audiences.create.mutationOptions());
  const remove = useMutation(trpc.admin.requesters.audiences.delete.mutationOptions());
  const form = useZodForm(AudienceForm, { defaultValues: { name: '', members: '' } });
  const onSubmit = form.handleSubmit(async (values) => {
    const members = values.members
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((m) => (m.includes('@') ? { email: m } : { domain: m }));
    const parsed = AudienceCreateBody.safeParse({ name: values.name, members });
    if (!parsed.success) {
      form.setError('members', { message: 'Each line must be an email address or a domain' });
      return;
    }
    try {
      await create.mutateAsync(parsed.data);
      form.reset();
      router.refresh();
    } catch (err) {
      showServerError(err, form.setError, 'members', { duplicate_audience: 'name' });
    }
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle>Audiences</CardTitle>
        <CardDescription>Named groups of requesters (emails, or everyone at a verified domain) that a meeting type or allocation can be limited to.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {audiences.length === 0 ? (
          <p className="text-sm text-muted">No audiences yet.</p>
        ) : (
          <ul className="flex flex-col gap-2" aria-label="Audiences">
            {audiences.map((a) => (
              <li key={a.audience_id} className="flex flex-wrap items-start justify-between gap-2 rounded-md border border-line p-3 text-sm">
                <div className="min-w-0">
                  <p className="font-medium">{a.name}</p>
                  <p className="break-all text-xs text-muted">{a.members.map((m) => ('email' in m ? m.email : `@${m.domain}`)).join(', ') || 'no members'}</p>
                </div>
                <ConfirmButton
                  label={`Delete audience ${a.name}`}
                  title={`Delete ${a.name}?`}
                  description="Meeting types or allocations that use it must be changed first."
                  confirmLabel="Delete audience"
                  onConfirm={async () => {
                    await remove.mutateAsync({ audience_id: a.audience_id });
                    router.refresh();
                  }}
                >
                  Delete
                </ConfirmButton>
              </li>
            ))}
          </ul>
        )}
        <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-3">
          <Field label="Audience name" error={form.formState.errors.name?.message}>
            <Input autoComplete="off" {...form.register('name')} />
          </Field>
          <Field label="Members" hint="One per line: an email address, or a verified domain for everyone there." error={form.formState.errors.members?.message}>
            <Textarea {...form.register('members')} />
          </Field>
          <div>
            <Button type="submit" variant="secondary" disabled={form.formState.isSubmitting}>
              Create audience
            </Button>
          </div>
        </Form>
      </CardContent>
    </Card>
  );
}

/** The form picks a type as "link_id slug" in one select; the schema checks the fields it becomes. */
const AllocationForm = AllocationCreateBody.omit({ link_id: true, slug: true }).extend({ type: z.string().min(1, 'Choose a meeting type') });

function AllocationsCard({ allocations, audiences, types }: { allocations: Allocation[]; audiences: Audience[]; types: TypeChoice[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.requesters.allocations.create.mutationOptions());
  const remove = useMutation(trpc.admin.requesters.allocations.delete.mutationOptions());
  const form = useZodForm(AllocationForm, { defaultValues: { type: types[0] ? `${types[0].link_id} ${types[0].slug}` : '', audience: null, limit: 10, period: 'week' } });
  const label = (linkId: string, slug: string) => {
    const t = types.find((x) => x.link_id === linkId && x.slug === slug);
    return t ? `/${t.alias}/${t.slug}` : slug;
  };
  const onSubmit = form.handleSubmit(async ({ type, ...rest }) => {
    const [link_id, slug] = type.split(' ');
    try {
      await create.mutateAsync({ ...rest, link_id, slug });
      router.refresh();
    } catch (err) {
      showServerError(err, form.setError, 'root');
    }
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle>Allocations</CardTitle>
        <CardDescription>Caps on bookings through one meeting type per day, week or month, for everyone or one audience.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {allocations.length === 0 ? (
          <p className="text-sm text-muted">No allocations: meeting types take as many bookings as the owner&apos;s time allows.</p>
        ) : (
          <ul className="flex flex-col gap-2" aria-label="Allocations">
            {allocations.map((a) => (
              <li key={a.allocation_id} className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-line p-3 text-sm">
                <span className="flex min-w-0 flex-1 flex-col gap-1">
                  <span>
                    <span className="font-mono">{label(a.link_id, a.slug)}</span>: at most {a.limit} per {a.period}
                    {a.audience ? ` for ${a.audience}` : ''}
                  </span>
                  <UsageMeter a={a} />
                </span>
                <ConfirmButton
                  label={`Delete allocation on ${a.slug}`}
                  title="Delete this allocation?"
                  description="Bookings through the meeting type are no longer capped by it."
                  confirmLabel="Delete allocation"
                  onConfirm={async () => {
                    await remove.mutateAsync({ allocation_id: a.allocation_id });
                    router.refresh();
                  }}
                >
                  Delete
                </ConfirmButton>
              </li>
            ))}
          </ul>
        )}
        {types.length === 0 ? (
          <p className="text-sm text-muted">Create a link and a meeting type first.</p>
        ) : (
          <Form onSubmit={onSubmit} noValidate className="grid gap-3 sm:grid-cols-2">
            <Field label="Meeting type" error={form.formState.errors.type?.message}>
              <Select {...form.register('type')}>
                {types.map((t) => (
                  <option key={`${t.link_id} ${t.slug}`} value={`${t.link_id} ${t.slug}`}>
                    /{t.alias}/{t.slug} ({t.title})
                  </option>
                ))}
              </Select>
            </Field>
            <Field label="Counts bookings by" error={form.formState.errors.audience?.message}>
              <Select {...form.register('audience', { setValueAs: (v) => v || null })}>
                <option value="">Everyone</option>
                {audiences.map((a) => (
                  <option key={a.audience_id} value={a.name}>
                    {a.name}
                  </option>
                ))}
              </Select>
            </Field>
            <Field label="At most" error={form.formState.errors.limit?.message}>
              <Input type="number" min="1" {...form.register('limit', { valueAsNumber: true })} />
            </Field>
            <Field label="Per" error={form.formState.errors.period?.message}>
              <Select {...form.register('period')}>
                <option value="day">day</option>
                <option value="week">week</option>
                <option value="month">month</option>
              </Select>
            </Field>
            {form.formState.errors.root && <Alert tone="danger" className="sm:col-span-2">{form.formState.errors.root.message}</Alert>}
            <div className="sm:col-span-2">
              <Button type="submit" variant="secondary" disabled={form.formState.isSubmitting}>
                Add allocation
              </Button>
            </div>
          </Form>
        )}
      </CardContent>
    </Card>
  );
}
