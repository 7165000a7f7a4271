'use client';

import { useState, type FormEvent } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { Pencil, Plus } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Badge, Button, Card, CardContent, CardDescription, CardHeader, CardTitle, Dialog, DialogContent, DialogTrigger, Field, Input, Form } from '@/components/ui';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { EmptyState } from './empty-state';
import { readServerError } from '@/components/ui/server-error';

type PoolMemberShare = { owner_email: string; weight: number; booked_minutes: number; share: number; target_share: number };
type PoolRow = { pool_id: string; name: string; members: { owner_email: string; weight: number }[]; created_at: string; assignments: PoolMemberShare[] };
type MemberDraft = { owner_email: string; weight: number }[];

const percent = (x: number) => `${Math.round(x * 1000) / 10} %`;

/**
 * Pools (docs/groups.md, "Pools"): each pool with its members, weights and the last 30 days'
 * assignments against the weights; create, edit (name, members, weights) and delete. Every
 * action is one admin.pools procedure; the page data reloads after it.
 */
export function PoolsConsole({ pools, ownerEmails, withoutHours = [] }: { pools: PoolRow[]; ownerEmails: string[]; /** Owners without working hours: public pages leave them out of a pool. */ withoutHours?: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.pools.create.mutationOptions());
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <section aria-labelledby="pools-title" className="flex min-w-0 flex-col gap-4">
        <h2 id="pools-title" className="text-base font-semibold">
          Pools and their last 30 days
        </h2>
        {pools.length === 0 ? (
          <EmptyState title="No pools yet">
            A pool is a team agents can book through: each booking goes to the member with the lowest load for their weight. Create one with the form.
          </EmptyState>
        ) : (
          <ul className="flex flex-col gap-4">
            {pools.map((p) => (
              <li key={p.pool_id}>
                <PoolCard pool={p} ownerEmails={ownerEmails} withoutHours={withoutHours} />
              </li>
            ))}
          </ul>
        )}
      </section>
      <Card className="min-w-0 lg:self-start">
        <CardHeader>
          <CardTitle>New pool</CardTitle>
          <CardDescription>Pick the members and give each a weight from 1 to 100: a member with weight 2 takes twice the meeting time of one with weight 1.</CardDescription>
        </CardHeader>
        <CardContent>
          <PoolForm
            idPrefix="new"
            ownerEmails={ownerEmails}
            submitLabel="Create pool"
            onSubmit={async (name, members) => {
              await create.mutateAsync({ name, members });
              router.refresh();
            }}
            resetAfter
          />
        </CardContent>
      </Card>
    </div>
  );
}

function PoolCard({ pool, ownerEmails, withoutHours }: { pool: PoolRow; ownerEmails: string[]; withoutHours: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const remove = useMutation(trpc.admin.pools.delete.mutationOptions());
  const totalMinutes = pool.assignments.reduce((s, m) => s + m.booked_minutes, 0);
  const titleId = `pool-${pool.pool_id}-title`;
  return (
    <section aria-labelledby={titleId}>
      <Card>
        <CardHeader>
          <div className="flex flex-wrap items-start justify-between gap-2">
            <div>
              <CardTitle id={titleId}>{pool.name}</CardTitle>
              <CardDescription>
                {pool.members.length} {pool.members.length === 1 ? 'member' : 'members'} · {totalMinutes} minutes booked through the pool in the last 30 days
              </CardDescription>
            </div>
            <div className="flex gap-2">
              <EditPoolDialog pool={pool} ownerEmails={ownerEmails} />
              <ConfirmButton
                label={`Delete pool ${pool.name}`}
                title={`Delete the pool ${pool.name}?`}
                description="Agents can no longer book through it. Meetings already booked stay with their owners."
                confirmLabel="Delete pool"
                onConfirm={async () => {
                  await remove.mutateAsync({ pool_id: pool.pool_id });
                  router.refresh();
                }}
              >
                Delete
              </ConfirmButton>
            </div>
          </div>
        </CardHeader>
        <CardContent>
          {/* Focusable so a keyboard user can scroll the table sideways on a phone. */}
          <div className="overflow-x-auto rounded-lg border border-line" tabIndex={0} role="region" aria-label={`Members of ${pool.name}`}>
            <table className="w-full text-left text-sm">
              <caption className="sr-only">Members of {pool.name}: weights and the last 30 days&apos; share of booked minutes against the target share</caption>
              <thead className="bg-surface-2 text-xs text-muted">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">Member</th>
                  <th scope="col" className="px-3 py-2 font-medium">Weight</th>
                  <th scope="col" className="px-3 py-2 font-medium">Booked (30 days)</th>
                  <th scope="col" className="px-3 py-2 font-medium">Share</th>
                  <th scope="col" className="px-3 py-2 font-medium">Target</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {pool.assignments.map((m) => (
                  <tr key={m.owner_email}>
                    <th scope="row" className="px-3 py-2 font-medium break-all">
                      {m.owner_email}
                      {withoutHours.includes(m.owner_email) && (
                        <Badge tone="warn" className="ml-2">
                          no working hours: left out of public pages
                        </Badge>
                      )}
                    </th>
                    <td className="px-3 py-2 tabular-nums">{m.weight}</td>
                    <td className="px-3 py-2 tabular-nums">{m.booked_minutes} min</td>
                    <td className="px-3 py-2">
                      <ShareBar share={m.share} target={m.target_share} />
                    </td>
                    <td className="px-3 py-2 tabular-nums">{percent(m.target_share)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </CardContent>
      </Card>
    </section>
  );
}

/** The share as a number and a bar, with a mark at the target (the bar is decoration: the numbers carry it). */
function ShareBar({ share, target }: { share: number; target: number }) {
  return (
    <div className="flex min-w-36 items-center gap-2">
      <span className="w-14 tabular-nums">{percent(share)}</span>
      <span aria-hidden className="relative h-2 flex-1 rounded-full bg-surface-2">
        <span className="absolute inset-y-0 left-0 rounded-full bg-accent" style={{ width: `${Math.min(100, share * 100)}%` }} />
        <span className="absolute -inset-y-1 w-0.5 bg-fg" style={{ left: `${Math.min(100, target * 100)}%` }} />
      </span>
    </div>
  );
}

function EditPoolDialog({ pool, ownerEmails }: { pool: PoolRow; ownerEmails: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const update = useMutation(trpc.admin.pools.update.mutationOptions());
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="secondary" size="sm" aria-label={`Edit pool ${pool.name}`}>
          <Pencil aria-hidden /> Edit
        </Button>
      </DialogTrigger>
      <DialogContent title={`Edit ${pool.name}`} description="Change the name, the members or their weights. The next bookings follow the new weights.">
        <PoolForm
          idPrefix={`edit-${pool.pool_id}`}
          ownerEmails={ownerEmails}
          initialName={pool.name}
          initialMembers={pool.members}
          submitLabel="Save pool"
          onSubmit={async (name, members) => {
            await update.mutateAsync({ pool_id: pool.pool_id, name, members });
            setOpen(false);
            router.refresh();
          }}
        />
      </DialogContent>
    </Dialog>
  );
}

/** Name, and per owner a member checkbox and a weight. */
function PoolForm({
  idPrefix,
  ownerEmails,
  initialName = '',
  initialMembers = [],
  submitLabel,
  onSubmit,
  resetAfter = false,
}: {
  idPrefix: string;
  ownerEmails: string[];
  initialName?: string;
  initialMembers?: MemberDraft;
  submitLabel: string;
  onSubmit: (name: string, members: MemberDraft) => Promise<void>;
  resetAfter?: boolean;
}) {
  const initialWeights = () => Object.fromEntries(ownerEmails.map((e) => [e, String(initialMembers.find((m) => m.owner_email === e)?.weight ?? 1)]));
  const [name, setName] = useState(initialName);
  const [chosen, setChosen] = useState<Set<string>>(() => new Set(initialMembers.map((m) => m.owner_email)));
  const [weights, setWeights] = useState<Record<string, string>>(initialWeights);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const members = ownerEmails.filter((o) => chosen.has(o)).map((o) => ({ owner_email: o, weight: Number(weights[o]) }));
    if (!name.trim()) return setError('Give the pool a name.');
    if (!members.length) return setError('Pick at least one member.');
    const bad = members.find((m) => !Number.isInteger(m.weight) || m.weight < 1 || m.weight > 100);
    if (bad) return setError(`The weight of ${bad.owner_email} must be a whole number from 1 to 100.`);
    setBusy(true);
    try {
      await onSubmit(name.trim(), members);
      if (resetAfter) {
        setName('');
        setChosen(new Set());
        setWeights(initialWeights());
      }
    } catch (err) {
      setError(readServerError(err).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <Field label="Name">
        <Input autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium">Members and weights</legend>
        {ownerEmails.length === 0 && <p className="text-sm text-muted">Add owners first.</p>}
        {ownerEmails.map((o, i) => {
          const id = `${idPrefix}-member-${i}`;
          return (
            <div key={o} className="flex items-center gap-3">
              <input
                id={id}
                type="checkbox"
                className="size-4 shrink-0"
                checked={chosen.has(o)}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if (e.target.checked) next.add(o);
                  else next.delete(o);
                  setChosen(next);
                }}
              />
              <label htmlFor={id} className="min-w-0 flex-1 text-sm break-all">
                {o}
              </label>
              <div className="w-20 shrink-0">
                <Input
                  type="number"
                  min={1}
                  max={100}
                  inputMode="numeric"
                  aria-label={`Weight of ${o}`}
                  disabled={!chosen.has(o)}
                  value={weights[o] ?? '1'}
                  onChange={(e) => setWeights({ ...weights, [o]: e.target.value })}
                />
              </div>
            </div>
          );
        })}
      </fieldset>
      {error && <Alert tone="danger">{error}</Alert>}
      <div>
        <Button type="submit" disabled={busy}>
          {resetAfter && <Plus aria-hidden />} {submitLabel}
        </Button>
      </div>
    </Form>
  );
}
