import type { Metadata } from 'next';
import Link from 'next/link';
import { Download } from 'lucide-react';
import { EmptyState } from '@/components/admin/empty-state';
import { AUDIT_ACTIONS, auditQueryInput, auditSearchString, type AuditSearch } from '@/components/admin/audit-filters';
import { Badge, Button, Input, Label, PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Audit log · Agent Scheduler' };

const PAGE_SIZE = 25;
const selectClasses = 'h-10 w-full rounded-md border border-line bg-surface px-2 text-sm text-fg';

function fmt(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString('en-GB', { timeZone: 'UTC', dateStyle: 'medium', timeStyle: 'short' }) + ' UTC' : '';
}

/**
 * The audit log: filters in the address (a plain GET form, so a filtered view
 * can be shared), admin.audit.query with a cursor for the next page, and the
 * same filters exported as CSV (./export).
 */
export default async function AuditPage({ searchParams }: { searchParams: Promise<AuditSearch> }) {
  const s = await searchParams;
  const trpc = await serverTrpc();
  const [page, { agents }, { owners }] = await Promise.all([trpc.admin.audit.query(auditQueryInput(s, PAGE_SIZE)), trpc.admin.agents.list(), trpc.admin.owners.list()]);
  const agentName = new Map(agents.map((a) => [a.agent_id, a.name]));
  const filtered = Boolean(s.action || s.outcome || s.agent_id || s.owner_email || s.from || s.to);
  return (
    <>
      <PageHeader
        title="Audit log"
        description="Every scheduling decision, newest first: who asked, what was decided and why."
        actions={
          <Button asChild variant="secondary">
            <a href={`/dashboard/admin/audit/export${auditSearchString(s)}`} download>
              <Download aria-hidden /> Export CSV
            </a>
          </Button>
        }
      />
      <form method="get" className="mb-5 grid grid-cols-2 gap-3 rounded-lg border border-line bg-surface p-3 sm:grid-cols-3 lg:grid-cols-7" aria-label="Filter the audit log">
        <div className="flex flex-col gap-1">
          <Label htmlFor="f-action">Action</Label>
          <select id="f-action" name="action" defaultValue={s.action ?? ''} className={selectClasses}>
            <option value="">Any</option>
            {AUDIT_ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="f-outcome">Outcome</Label>
          <select id="f-outcome" name="outcome" defaultValue={s.outcome ?? ''} className={selectClasses}>
            <option value="">Any</option>
            <option value="accept">accept</option>
            <option value="reject">reject</option>
            <option value="counter_propose">counter_propose</option>
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="f-agent">Agent</Label>
          <select id="f-agent" name="agent_id" defaultValue={s.agent_id ?? ''} className={selectClasses}>
            <option value="">Any</option>
            {agents.map((a) => (
              <option key={a.agent_id} value={a.agent_id}>
                {a.name}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="f-owner">Owner</Label>
          <select id="f-owner" name="owner_email" defaultValue={s.owner_email ?? ''} className={selectClasses}>
            <option value="">Any</option>
            {owners.map((o) => (
              <option key={o.owner_email}>{o.owner_email}</option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="f-from">From (UTC)</Label>
          <Input id="f-from" type="date" name="from" defaultValue={s.from ?? ''} />
        </div>
        <div className="flex flex-col gap-1">
          <Label htmlFor="f-to">To (UTC)</Label>
          <Input id="f-to" type="date" name="to" defaultValue={s.to ?? ''} />
        </div>
        <div className="col-span-2 flex items-end gap-2 sm:col-span-3 lg:col-span-1">
          <Button type="submit">Filter</Button>
          {filtered && (
            <Button asChild variant="ghost">
              <Link href="/dashboard/admin/audit">Clear</Link>
            </Button>
          )}
        </div>
      </form>
      {page.entries.length === 0 ? (
        <EmptyState title={filtered ? 'No decisions match these filters' : 'No decisions yet'}>
          {filtered ? 'Widen the filters or clear them.' : 'Decisions appear here as soon as an agent holds, books or cancels time.'}
        </EmptyState>
      ) : (
        <ol className="flex flex-col gap-2" aria-label="Decisions">
          {page.entries.map((e) => (
            <li key={e.id} className="rounded-lg border border-line bg-surface p-3 text-sm" data-testid="audit-row">
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <Badge tone={e.outcome === 'accept' ? 'ok' : e.outcome === 'reject' ? 'danger' : 'warn'}>{e.outcome}</Badge>
                <span className="font-mono text-xs">{e.action}</span>
                <span className="text-muted">{fmt(e.at)}</span>
              </div>
              <dl className="mt-2 grid gap-x-4 gap-y-1 sm:grid-cols-[8rem_1fr]">
                {e.reason && (
                  <>
                    <dt className="text-muted">Reason</dt>
                    <dd className="font-medium">{e.reason}</dd>
                  </>
                )}
                <dt className="text-muted">Owner</dt>
                <dd>{e.owner_email ?? '—'}</dd>
                <dt className="text-muted">Agent</dt>
                <dd>{e.agent_id ? (agentName.get(e.agent_id) ?? e.agent_id) : '—'}</dd>
                {e.meeting_class && (
                  <>
                    <dt className="text-muted">Class</dt>
                    <dd>{e.meeting_class}</dd>
                  </>
                )}
                {e.start && (
                  <>
                    <dt className="text-muted">Time</dt>
                    <dd>
                      {fmt(e.start)} – {fmt(e.end)}
                    </dd>
                  </>
                )}
                {e.outcome !== 'accept' && (e.alternatives?.length ?? 0) > 0 && (
                  <>
                    <dt className="text-muted">Alternatives</dt>
                    <dd>
                      <ul className="list-disc pl-4">
                        {e.alternatives!.map((a) => (
                          <li key={a.start}>
                            {fmt(a.start)} – {fmt(a.end)}
                          </li>
                        ))}
                      </ul>
                    </dd>
                  </>
                )}
              </dl>
            </li>
          ))}
        </ol>
      )}
      <nav aria-label="Audit log pages" className="mt-4 flex justify-between">
        {s.cursor ? (
          <Button asChild variant="ghost">
            <Link href={`/dashboard/admin/audit${auditSearchString(s)}`}>Newest</Link>
          </Button>
        ) : (
          <span />
        )}
        {page.next_cursor && (
          <Button asChild variant="secondary">
            <Link href={`/dashboard/admin/audit${auditSearchString(s, { cursor: page.next_cursor })}`}>Older decisions</Link>
          </Button>
        )}
      </nav>
    </>
  );
}
