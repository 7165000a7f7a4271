'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Pencil, Plus, Power, Send, ShieldAlert } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Badge, Button, Card, CardContent, CardDescription, CardHeader, CardTitle, Dialog, DialogContent, DialogTrigger, Field, Input, LocalTime, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { WEBHOOK_MANUAL_DISABLE_REASON } from '@/db/schema';
import type { DeliveryView, WebhookView } from '@/server/domain/webhooks/endpoints';
import { WebhookCreateBody } from '@/server/schemas/webhooks';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { EmptyState } from './empty-state';
import { SecretOnceDialog } from './secret-once-dialog';
import { readServerError, showServerError } from '@/components/ui/server-error';

/** The rows the page hands in: the domain's views (docs/webhooks.md). */
type WebhookRow = WebhookView;
type DeliveryRow = DeliveryView;

/** The event kinds an endpoint can subscribe to, one line each (docs/webhooks.md "Events"). */
const EVENT_HELP: [string, string][] = [
  ['booking.created', 'The agent booked directly, or a proposal of its was approved into a booking'],
  ['booking.confirmed', 'The agent confirmed a hold into a booking'],
  ['proposal.created', 'The agent created a booking proposal'],
  ['proposal.reviewed', 'An owner approved or declined a proposal of the agent'],
  ['hold.expired', 'A hold of the agent expired unconfirmed'],
  ['booking.preempted', 'A booking of the agent gave way to a higher-priority one'],
  ['booking.cancelled', 'A booking of the agent was cancelled'],
  ['series.created', 'The agent booked a recurring series (one event for the series, beside each occurrence\'s booking.created)'],
  ['series.cancelled', 'Occurrences of a recurring series of the agent were cancelled (one event per cancel, with the scope)'],
  ['webhook.disabled', 'Another endpoint of the agent was disabled after failing'],
];

const WEBHOOK_ERRORS = { WEBHOOK_URL_REFUSED: 'url' } as const;

function when(iso: string | null): React.ReactNode {
  return iso ? <LocalTime iso={iso} precision="second" /> : '—';
}

/** An agent's webhook endpoints (admin.webhooks.*): create, edit, disable/enable, delete, test, and each one's delivery log. */
export function WebhooksConsole({ agentId, agentName, webhooks, deliveries }: { agentId: string; agentName: string; webhooks: WebhookRow[]; deliveries: Record<string, DeliveryRow[]> }) {
  const [secret, setSecret] = useState<string | null>(null);
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <div className="flex flex-col gap-4">
        {webhooks.length === 0 ? (
          <EmptyState title="No webhook endpoints yet">
            Add the URL of a receiver to have {agentName}&apos;s events POSTed to it as they happen, then send a test to check it answers 2xx.
          </EmptyState>
        ) : (
          webhooks.map((w) => <EndpointCard key={w.id} agentId={agentId} endpoint={w} deliveries={deliveries[w.id] ?? []} />)
        )}
      </div>
      <Card className="lg:self-start">
        <CardHeader>
          <CardTitle>New endpoint</CardTitle>
          <CardDescription>Only http(s) URLs; addresses on private networks are refused unless the server allows them.</CardDescription>
        </CardHeader>
        <CardContent>
          <EndpointForm agentId={agentId} onCreated={setSecret} />
        </CardContent>
      </Card>
      <SecretOnceDialog
        title="Signing secret"
        secret={secret}
        warning="Keep it in the receiver's configuration: it verifies that deliveries come from this service (docs/webhooks.md)."
        testId="webhook-secret"
        onClose={() => setSecret(null)}
      />
    </div>
  );
}

/** URL, description and event kinds: a new endpoint (admin.webhooks.create) or, with `existing`, changes to one (.update). */
function EndpointForm({ agentId, existing, onCreated, onSaved }: { agentId: string; existing?: WebhookRow; onCreated?: (secret: string) => void; onSaved?: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.webhooks.create.mutationOptions());
  const update = useMutation(trpc.admin.webhooks.update.mutationOptions());
  const defaults = { url: existing?.url ?? '', description: existing?.description ?? '', events: existing?.events ?? ['booking.created', 'booking.confirmed', 'proposal.reviewed'] };
  const { register, handleSubmit, setError, formState, reset } = useZodForm(WebhookCreateBody, { defaultValues: defaults as never });
  const idPrefix = existing ? `edit-${existing.id}` : 'new';
  const onSubmit = handleSubmit(async (values) => {
    const body = { ...values, description: values.description?.trim() || null };
    try {
      if (existing) {
        await update.mutateAsync({ agent_id: agentId, webhook_id: existing.id, patch: body });
        onSaved?.();
      } else {
        const created = await create.mutateAsync({ agent_id: agentId, ...body });
        reset();
        if (created.secret) onCreated?.(created.secret);
      }
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', WEBHOOK_ERRORS);
    }
  });
  return (
    <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
      <Field label="URL" error={formState.errors.url?.message}>
        <Input type="url" autoComplete="off" spellCheck={false} placeholder="https://example.com/webhooks/scheduler" {...register('url')} />
      </Field>
      <Field label="Description (optional)" error={formState.errors.description?.message}>
        <Input autoComplete="off" {...register('description')} />
      </Field>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium">Events</legend>
        {EVENT_HELP.map(([kind, help]) => (
          <label key={kind} className="flex items-start gap-2 text-sm" htmlFor={`${idPrefix}-${kind}`}>
            <input id={`${idPrefix}-${kind}`} type="checkbox" value={kind} className="mt-0.5 size-4 shrink-0" {...register('events')} />
            <span>
              <span className="font-mono text-xs">{kind}</span>
              <span className="block text-muted">{help}</span>
            </span>
          </label>
        ))}
        {formState.errors.events?.message && <p className="text-sm text-danger">{formState.errors.events.message}</p>}
      </fieldset>
      {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
      <div className="flex justify-end">
        <Button type="submit" disabled={formState.isSubmitting}>
          {existing ? (
            'Save endpoint'
          ) : (
            <>
              <Plus aria-hidden /> Add endpoint
            </>
          )}
        </Button>
      </div>
    </Form>
  );
}

function EndpointCard({ agentId, endpoint: w, deliveries }: { agentId: string; endpoint: WebhookRow; deliveries: DeliveryRow[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.admin.webhooks.update.mutationOptions());
  const remove = useMutation(trpc.admin.webhooks.delete.mutationOptions());
  const test = useMutation(trpc.admin.webhooks.test.mutationOptions());
  const [editing, setEditing] = useState(false);
  const [message, setMessage] = useState<{ tone: 'ok' | 'danger'; text: string } | null>(null);
  const [polling, setPolling] = useState(false);
  // The log refreshes itself while a delivery is on its way.
  const log = useQuery(
    trpc.admin.webhooks.deliveries.queryOptions(
      { agent_id: agentId, webhook_id: w.id },
      {
        initialData: { deliveries: deliveries as never, next_cursor: null },
        refetchInterval: (q) => (polling || q.state.data?.deliveries.some((d) => d.status === 'pending') ? 1500 : false),
      },
    ),
  );
  const rows = (log.data?.deliveries ?? deliveries) as DeliveryRow[];
  const autoDisabled = w.status === 'disabled' && w.disabled_reason !== WEBHOOK_MANUAL_DISABLE_REASON;
  return (
    <Card data-testid={`webhook-${w.url}`}>
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle className="min-w-0 break-all font-mono text-sm">{w.url}</CardTitle>
          {w.status === 'active' ? <Badge tone="ok">Active</Badge> : <Badge tone="danger">Disabled</Badge>}
        </div>
        <CardDescription>
          {w.description ? `${w.description} · ` : ''}
          {w.events.join(', ')}
        </CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        {w.status === 'disabled' && (
          <Alert tone={autoDisabled ? 'danger' : 'info'} data-testid="webhook-disabled">
            <ShieldAlert aria-hidden />
            <strong>{autoDisabled ? 'Disabled automatically' : 'Disabled'}</strong> on {when(w.disabled_at)}: {w.disabled_reason ?? 'no reason recorded'}.
            {autoDisabled ? ' Fix the receiver, then enable it: undelivered events resume in order.' : ' Enable it to resume deliveries in order.'}
          </Alert>
        )}
        {w.status === 'active' && w.consecutive_failures > 0 && (
          <Alert tone="warn">The last {w.consecutive_failures} attempts failed; the endpoint is disabled automatically if failures go on.</Alert>
        )}
        <div className="flex flex-wrap gap-2">
          <Button
            variant="secondary"
            size="sm"
            disabled={test.isPending || w.status === 'disabled'}
            onClick={async () => {
              setMessage(null);
              try {
                await test.mutateAsync({ agent_id: agentId, webhook_id: w.id });
                setMessage({ tone: 'ok', text: 'Test event queued: it shows in the log below once attempted.' });
                setPolling(true);
                setTimeout(() => setPolling(false), 20_000);
                await log.refetch();
              } catch (err) {
                setMessage({ tone: 'danger', text: readServerError(err).message });
              }
            }}
          >
            <Send aria-hidden /> Send test
          </Button>
          <Dialog open={editing} onOpenChange={setEditing}>
            <DialogTrigger asChild>
              <Button variant="secondary" size="sm" aria-label={`Edit endpoint ${w.url}`}>
                <Pencil aria-hidden /> Edit
              </Button>
            </DialogTrigger>
            <DialogContent title="Edit endpoint" description="Change where deliveries go and which events they carry. The signing secret stays the same.">
              <EndpointForm agentId={agentId} existing={w} onSaved={() => setEditing(false)} />
            </DialogContent>
          </Dialog>
          {w.status === 'disabled' ? (
            <Button
              variant="secondary"
              size="sm"
              onClick={async () => {
                await update.mutateAsync({ agent_id: agentId, webhook_id: w.id, patch: { enabled: true } });
                router.refresh();
              }}
            >
              <Power aria-hidden /> Enable
            </Button>
          ) : (
            <ConfirmButton
              label={`Disable endpoint ${w.url}`}
              title="Disable this endpoint?"
              description="Events for it wait in the outbox and are delivered in order when you enable it again."
              confirmLabel="Disable endpoint"
              onConfirm={async () => {
                await update.mutateAsync({ agent_id: agentId, webhook_id: w.id, patch: { enabled: false } });
                router.refresh();
              }}
            >
              <Power aria-hidden /> Disable
            </ConfirmButton>
          )}
          <ConfirmButton
            label={`Delete endpoint ${w.url}`}
            title="Delete this endpoint?"
            description="It stops receiving at once and its undelivered events are dropped. This cannot be undone."
            confirmLabel="Delete endpoint"
            variant="danger"
            onConfirm={async () => {
              await remove.mutateAsync({ agent_id: agentId, webhook_id: w.id });
              router.refresh();
            }}
          >
            Delete
          </ConfirmButton>
        </div>
        {message && <Alert tone={message.tone}>{message.text}</Alert>}
        <DeliveryLog rows={rows} url={w.url} />
      </CardContent>
    </Card>
  );
}

function DeliveryLog({ rows, url }: { rows: DeliveryRow[]; url: string }) {
  if (rows.length === 0) return <p className="text-sm text-muted">No deliveries yet. Send a test to see one here.</p>;
  return (
    <div className="overflow-x-auto rounded-md border border-line" role="region" aria-label={`Delivery log of ${url}`} tabIndex={0}>
      <table className="w-full min-w-[36rem] text-left text-sm">
        <caption className="sr-only">Recent deliveries, newest first</caption>
        <thead className="bg-surface-2 text-xs text-muted">
          <tr>
            <th scope="col" className="px-3 py-2 font-medium">Event</th>
            <th scope="col" className="px-3 py-2 font-medium">Status</th>
            <th scope="col" className="px-3 py-2 font-medium">Attempts</th>
            <th scope="col" className="px-3 py-2 font-medium">Last error</th>
            <th scope="col" className="px-3 py-2 font-medium">Time</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-line">
          {rows.map((d) => (
            <tr key={d.id} data-testid="delivery-row">
              <td className="px-3 py-2 font-mono text-xs">{d.kind}</td>
              <td className="px-3 py-2">
                {d.status === 'delivered' ? <Badge tone="ok">delivered</Badge> : <Badge tone={d.attempts ? 'warn' : 'neutral'}>{d.attempts ? 'retrying' : 'queued'}</Badge>}
                {d.last_status !== null && <span className="ml-1 font-mono text-xs">HTTP {d.last_status}</span>}
              </td>
              <td className="px-3 py-2">{d.attempts}</td>
              <td className="max-w-56 truncate px-3 py-2 text-xs text-danger" title={d.last_error ?? undefined}>
                {d.last_error ?? ''}
              </td>
              <td className="px-3 py-2 text-xs text-muted">
                {d.delivered_at ? <>Delivered {when(d.delivered_at)}</> : d.next_attempt_at ? <>Next try {when(d.next_attempt_at)}</> : when(d.created_at)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
