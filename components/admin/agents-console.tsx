'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { KeyRound, Plus, Webhook } from 'lucide-react';
import { Controller } from 'react-hook-form';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Badge, Button, Card, CardContent, CardDescription, CardHeader, CardTitle, Dialog, DialogContent, DialogTrigger, Field, Input, LocalTime, Select, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { AgentCreateBody } from '@/server/schemas/admin';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { EmptyState } from './empty-state';
import { SecretOnceDialog } from './secret-once-dialog';
import { showServerError } from '@/components/ui/server-error';

type KeyRow = { key_id: string; name: string | null; prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null };
export type AgentRow = { agent_id: string; name: string; owner_scope: string; permissions: string[]; disabled: boolean; display_time_zone: string | null; created_at: string; keys: KeyRow[] };

/** The datalist every display time zone field offers (docs/api.md "The caller's time zone"). */
const ZONE_LIST = 'agent-time-zones';

/** One line per permission (docs/api.md "Permissions"). */
const PERMISSION_HELP: [string, string][] = [
  ['read_availability', 'See free time and evaluate a proposed time, without changing anything.'],
  ['create_holds', 'Hold time tentatively while a meeting is being arranged.'],
  ['create_bookings', 'Book meetings and cancel the bookings it made.'],
  ['preempt', 'Move a lower-priority meeting aside when its class allows it.'],
  ['create_proposals', 'Propose meetings for an owner to approve.'],
  ['manage_agents', 'Create other agents and mint their keys (never with more rights than its own).'],
  ['manage_customer', 'Add owners, change schedule rules and meeting classes.'],
  ['manage_public_scheduling', 'Configure public links, meeting types, domains and requesters.'],
  ['read_audit', 'Read the decision log.'],
];

function when(iso: string | null): React.ReactNode {
  return iso ? <LocalTime iso={iso} /> : 'never';
}

/**
 * Agents and keys: create an agent (permissions, owner scope), disable or
 * enable it, mint a key (shown once, with a copy button), revoke a key.
 * Every action is one admin.agents procedure; the page data reloads after it.
 */
export function AgentsConsole({ agents, ownerEmails, timeZones }: { agents: AgentRow[]; ownerEmails: string[]; timeZones: string[] }) {
  const [createOpen, setCreateOpen] = useState(false);
  return (
    <div className="flex flex-col gap-4">
      <datalist id={ZONE_LIST}>
        {timeZones.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <div className="flex justify-end">
        <CreateAgentDialog open={createOpen} onOpenChange={setCreateOpen} ownerEmails={ownerEmails} />
      </div>
      {agents.length === 0 ? (
        <EmptyState title="No agents yet" action={<Button onClick={() => setCreateOpen(true)}>Create an agent</Button>}>
          Create an agent for each program that schedules for you, then mint a key and copy it into that program. The key is shown only once.
        </EmptyState>
      ) : (
        <ul className="flex flex-col gap-4">
          {agents.map((a) => (
            <li key={a.agent_id}>
              <AgentCard agent={a} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function CreateAgentDialog({ open, onOpenChange, ownerEmails }: { open: boolean; onOpenChange: (o: boolean) => void; ownerEmails: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.agents.create.mutationOptions());
  const form = useZodForm(AgentCreateBody, { defaultValues: { name: '', owner_scope: 'org:*', permissions: ['read_availability', 'create_holds', 'create_bookings'] } });
  const { register, handleSubmit, setError, formState, control, reset } = form;
  const onSubmit = handleSubmit(async (values) => {
    try {
      await create.mutateAsync(values);
      reset();
      onOpenChange(false);
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', { INVALID_TIME_ZONE: 'display_time_zone' });
    }
  });
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogTrigger asChild>
        <Button>
          <Plus aria-hidden /> New agent
        </Button>
      </DialogTrigger>
      <DialogContent title="New agent" description="An agent is one program acting for you. Give it only what it needs.">
        <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
          <Field label="Name" error={formState.errors.name?.message}>
            <Input autoComplete="off" {...register('name')} />
          </Field>
          <Field label="Owner scope" hint="Whose calendars the agent may act on." error={formState.errors.owner_scope?.message}>
            <Controller
              control={control}
              name="owner_scope"
              render={({ field }) => (
                <Select value={field.value ?? ''} onChange={(e) => field.onChange(e.target.value)} onBlur={field.onBlur} name={field.name} ref={field.ref}>
                  <option value="org:*">Every owner (org:*)</option>
                  {ownerEmails.map((e) => (
                    <option key={e} value={`user:${e}`}>
                      Only {e}
                    </option>
                  ))}
                </Select>
              )}
            />
          </Field>
          <Field label="Display time zone (optional)" hint="Answers add start_caller/end_caller in this zone when a call names none." error={formState.errors.display_time_zone?.message}>
            <Input list={ZONE_LIST} autoComplete="off" {...register('display_time_zone', { setValueAs: (v: string) => v.trim() || undefined })} />
          </Field>
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 text-sm font-medium">Permissions</legend>
            {PERMISSION_HELP.map(([p, help]) => (
              <label key={p} className="flex items-start gap-2 text-sm">
                <input type="checkbox" value={p} className="mt-0.5 size-4 shrink-0" {...register('permissions')} />
                <span>
                  <span className="font-mono text-xs">{p}</span>
                  <span className="block text-muted">{help}</span>
                </span>
              </label>
            ))}
            {formState.errors.permissions?.message && <p className="text-sm text-danger">{formState.errors.permissions.message}</p>}
          </fieldset>
          {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
          <div className="flex justify-end">
            <Button type="submit" disabled={formState.isSubmitting}>
              Create agent
            </Button>
          </div>
        </Form>
      </DialogContent>
    </Dialog>
  );
}

function AgentCard({ agent }: { agent: AgentRow }) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.admin.agents.update.mutationOptions());
  const revoke = useMutation(trpc.admin.agents.revokeKey.mutationOptions());
  const setDisabled = async (disabled: boolean) => {
    await update.mutateAsync({ agent_id: agent.agent_id, patch: { disabled } });
    router.refresh();
  };
  return (
    <Card data-testid={`agent-${agent.name}`} id={`agent-${agent.agent_id}`} className="scroll-mt-4 target:ring-2 target:ring-accent">
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle>{agent.name}</CardTitle>
          <div className="flex items-center gap-2">
            {agent.disabled ? <Badge tone="danger">Disabled</Badge> : <Badge tone="ok">Active</Badge>}
            {agent.disabled ? (
              <Button
                variant="secondary"
                size="sm"
                onClick={() => setDisabled(false)}
              >
                Enable
              </Button>
            ) : (
              <ConfirmButton
                label={`Disable ${agent.name}`}
                title={`Disable ${agent.name}?`}
                description="Its keys stop working at once (calls answer agent_disabled) until you enable it again."
                confirmLabel="Disable agent"
                onConfirm={() => setDisabled(true)}
              >
                Disable
              </ConfirmButton>
            )}
          </div>
        </div>
        <CardDescription>
          Scope <span className="font-mono">{agent.owner_scope}</span> · {agent.permissions.length ? agent.permissions.join(', ') : 'no permissions'}
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        <h3 className="text-sm font-semibold">Keys</h3>
        {agent.keys.length === 0 ? (
          <p className="text-sm text-muted">No keys yet. Mint one and copy it into the program.</p>
        ) : (
          <ul className="flex flex-col divide-y divide-line rounded-md border border-line">
            {agent.keys.map((k) => (
              <li key={k.key_id} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2 text-sm" data-testid={`key-${k.key_id}`}>
                <div className="min-w-0">
                  <span className="font-mono">{k.prefix}…</span> {k.name && <span className="text-muted">({k.name})</span>}
                  <p className="text-xs text-muted">
                    Created {when(k.created_at)} · last used {when(k.last_used_at)}
                  </p>
                </div>
                {k.revoked_at ? (
                  <Badge tone="neutral">Revoked {when(k.revoked_at)}</Badge>
                ) : (
                  <ConfirmButton
                    label={`Revoke key ${k.prefix}`}
                    title="Revoke this key?"
                    description="Calls with it are refused at once (api_key_revoked). This cannot be undone; mint a new key if the program still needs one."
                    confirmLabel="Revoke key"
                    onConfirm={async () => {
                      await revoke.mutateAsync({ id: agent.agent_id, key_id: k.key_id });
                      router.refresh();
                    }}
                  >
                    Revoke
                  </ConfirmButton>
                )}
              </li>
            ))}
          </ul>
        )}
        <DisplayZone agent={agent} />
        <MintKey agentId={agent.agent_id} agentName={agent.name} />
        <Link href={`/dashboard/admin/agents/${agent.agent_id}/webhooks`} className="inline-flex items-center gap-1 self-start text-sm">
          <Webhook className="size-4" aria-hidden /> Webhooks<span className="sr-only"> of {agent.name}</span>
        </Link>
      </CardContent>
    </Card>
  );
}

function MintKey({ agentId, agentName }: { agentId: string; agentName: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const mint = useMutation(trpc.admin.agents.mintKey.mutationOptions());
  const [name, setName] = useState('');
  const [key, setKey] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <Form
        className="flex flex-wrap items-end gap-2"
        onSubmit={async (e) => {
          e.preventDefault();
          setError(null);
          try {
            const minted = await mint.mutateAsync({ agent_id: agentId, ...(name ? { name } : {}) });
            setKey(minted.api_key);
            setName('');
          } catch (err) {
            setError((err as Error).message);
          }
        }}
      >
        <Field label={`Key name for ${agentName} (optional)`} className="min-w-48 flex-1" error={error ?? undefined}>
          <Input value={name} maxLength={200} onChange={(e) => setName(e.target.value)} placeholder="e.g. production" />
        </Field>
        <Button type="submit" variant="secondary" disabled={mint.isPending}>
          <KeyRound aria-hidden /> Mint key
        </Button>
      </Form>
      <SecretOnceDialog
        title="Your new API key"
        secret={key}
        warning={`Store it like a password. Anyone with this key can act as ${agentName}.`}
        testId="minted-key"
        onClose={() => {
          setKey(null);
          router.refresh();
        }}
      />
    </>
  );
}

/** The agent's display_time_zone: set, change or clear (empty) it (docs/api.md "The caller's time zone"). */
function DisplayZone({ agent }: { agent: AgentRow }) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.admin.agents.update.mutationOptions());
  const [zone, setZone] = useState(agent.display_time_zone ?? '');
  const [error, setError] = useState<string | null>(null);
  return (
    <Form
      className="flex flex-wrap items-end gap-2"
      onSubmit={async (e) => {
        e.preventDefault();
        setError(null);
        try {
          const saved = await update.mutateAsync({ agent_id: agent.agent_id, patch: { display_time_zone: zone.trim() || null } });
          setZone(saved.display_time_zone ?? '');
          router.refresh();
        } catch (err) {
          setError((err as Error).message);
        }
      }}
    >
      <Field label={`Display time zone of ${agent.name}`} hint="Empty: answers carry the owner's times only." className="min-w-48 flex-1" error={error ?? undefined}>
        <Input list={ZONE_LIST} autoComplete="off" value={zone} maxLength={64} onChange={(e) => setZone(e.target.value)} placeholder="e.g. America/New_York" />
      </Field>
      <Button type="submit" variant="secondary" disabled={update.isPending}>
        Save zone
      </Button>
    </Form>
  );
}
