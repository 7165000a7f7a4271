'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Badge, Button, Card, CardContent, CardDescription, CardHeader, CardTitle, Field, Input, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { DomainCreateBody } from '@/server/schemas/publicAdmin';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { readServerError, showServerError } from '@/components/ui/server-error';

export type DomainRow = { domain_id: string; domain: string; status: 'pending' | 'verified'; challenge: { record_name: string; record_value: string }; verified_at: string | null };

/** Verified domains: add one, publish the exact TXT record shown, then "Verify now" (admin.publicScheduling.domains.*). */
export function DomainsCard({ domains }: { domains: DomainRow[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.publicScheduling.domains.create.mutationOptions());
  const { register, handleSubmit, setError, formState, reset } = useZodForm(DomainCreateBody, { defaultValues: { domain: '' } });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await create.mutateAsync(values);
      reset();
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'domain');
    }
  });
  return (
    <Card>
      <CardHeader>
        <CardTitle>Verified domains</CardTitle>
        <CardDescription>Prove you control a domain so requesters with addresses there can be trusted (identities, audiences).</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {domains.length === 0 ? (
          <p className="text-sm text-muted">No domains yet. Add one, then create the DNS record it shows.</p>
        ) : (
          <ul className="flex flex-col gap-3" aria-label="Domains">
            {domains.map((d) => (
              <DomainItem key={d.domain_id} d={d} />
            ))}
          </ul>
        )}
        <Form onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-2">
          <Field label="Domain" className="min-w-48 flex-1" error={formState.errors.domain?.message}>
            <Input autoComplete="off" spellCheck={false} placeholder="example.com" {...register('domain')} />
          </Field>
          <Button type="submit" variant="secondary" disabled={formState.isSubmitting}>
            Add domain
          </Button>
        </Form>
      </CardContent>
    </Card>
  );
}

function DomainItem({ d }: { d: DomainRow }) {
  const trpc = useTRPC();
  const router = useRouter();
  const verify = useMutation(trpc.admin.publicScheduling.domains.verify.mutationOptions());
  const remove = useMutation(trpc.admin.publicScheduling.domains.delete.mutationOptions());
  const [error, setError] = useState<string | null>(null);
  return (
    <li className="rounded-md border border-line p-3 text-sm" data-testid={`domain-${d.domain}`}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="font-medium">{d.domain}</span>
        <div className="flex items-center gap-2">
          {d.status === 'verified' ? <Badge tone="ok">verified</Badge> : <Badge tone="warn">pending</Badge>}
          {d.status === 'pending' && (
            <Button
              size="sm"
              variant="secondary"
              disabled={verify.isPending}
              onClick={async () => {
                setError(null);
                try {
                  await verify.mutateAsync({ domain_id: d.domain_id });
                  router.refresh();
                } catch (err) {
                  setError(readServerError(err).message);
                }
              }}
            >
              Verify now
            </Button>
          )}
          <ConfirmButton
            label={`Remove domain ${d.domain}`}
            title={`Remove ${d.domain}?`}
            description="Its challenge is forgotten; a domain that identities or audiences still use cannot be removed."
            confirmLabel="Remove domain"
            onConfirm={async () => {
              await remove.mutateAsync({ domain_id: d.domain_id });
              router.refresh();
            }}
          >
            Remove
          </ConfirmButton>
        </div>
      </div>
      {d.status === 'pending' && (
        <dl className="mt-2 grid gap-x-3 gap-y-1 sm:grid-cols-[6rem_1fr]">
          <dt className="text-muted">Type</dt>
          <dd className="font-mono">TXT</dd>
          <dt className="text-muted">Name</dt>
          <dd className="break-all font-mono">{d.challenge.record_name}</dd>
          <dt className="text-muted">Value</dt>
          <dd className="break-all font-mono">{d.challenge.record_value}</dd>
        </dl>
      )}
      {error && (
        <Alert tone="danger" className="mt-2">
          {error}
        </Alert>
      )}
    </li>
  );
}
