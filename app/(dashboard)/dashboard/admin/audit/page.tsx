import type { Metadata } from 'next';
import Link from 'next/link';
import { TRPCError } from '@trpc/server';
import { Download } from 'lucide-react';
import { AuditFilterForm } from '@/components/admin/audit-filter-form';
import { EmptyState } from '@/components/admin/empty-state';
import { auditQueryInput, auditSearchString, dateRangeError, type AuditSearch } from '@/components/admin/audit-filters';
import { formatDateTime } from '@/components/ui/time-format';
import { Badge, Button, PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';
import { AUDIT_OUTCOME_WORDS } from '@/server/domain/audit/words';

export const metadata: Metadata = { title: 'Audit log · Agent Scheduler' };

const PAGE_SIZE = 25;

/** An instant in the owner's zone, with the UTC instant on hover and in the markup. */
function When({ iso, timeZone }: { iso: string | null; timeZone: string }) {
  if (!iso) return null;
  return (
    <time dateTime={iso} title={`${iso.slice(0, 16).replace('T', ' ')} UTC`}>
      {formatDateTime(iso, timeZone)}
    </time>
  );
}

/** An old or new value: an instant in the owner's zone, a word, or "none". */
function Value({ text, instant, timeZone }: { text: string | null; instant?: boolean; timeZone: string }) {
  if (text === null) return <span className="text-muted">none</span>;
  if (instant) return <When iso={text} timeZone={timeZone} />;
  return <span className="font-medium">{text}</span>;
}

const outcomeWords = (o: string) => (o in AUDIT_OUTCOME_WORDS ? AUDIT_OUTCOME_WORDS[o as keyof typeof AUDIT_OUTCOME_WORDS] : o);

type Page = Awaited<ReturnType<Awaited<ReturnType<typeof serverTrpc>>['admin']['audit']['query']>>;
type Entry = Page['entries'][number];

/** The server's refusal of the filters (a zod issue on from/to), or null when the error is something else. */
function filterRefusal(err: unknown): { field: 'from' | 'to'; message: string } | null {
  if (!(err instanceof TRPCError) || err.code !== 'BAD_REQUEST') return null;
  const issues = (err.cause as { issues?: { path: PropertyKey[]; message: string }[] } | undefined)?.issues ?? [];
  const issue = issues.find((i) => i.path[0] === 'from' || i.path[0] === 'to');
  return issue ? { field: issue.path[0] === 'to' ? 'to' : 'from', message: issue.message } : null;
}

/** Who acted, in words: an agent by name, an owner or requester by email, or the system. */
function actorOf(e: Entry, agentName: Map<string, string>): string {
  if (e.actor_kind === 'agent' && e.agent_id) return `Agent ${agentName.get(e.agent_id) ?? e.agent_id}`;
  if (e.actor_kind === 'owner') return `Owner ${e.actor_owner_email} (dashboard)`;
  if (e.actor_kind === 'requester') return `Requester ${e.actor_requester_email}`;
  return 'System';
}

/**
 * The audit log: filters in the address (a plain GET form, so a filtered view
 * can be shared; dates are days in the owner's zone), admin.audit.query with a
 * cursor for the next page, times in the owner's zone (UTC on hover), and the
 * same filters exported as CSV (./export).
 */
export default async function AuditPage({ searchParams }: { searchParams: Promise<AuditSearch> }) {
  const s = await searchParams;
  const trpc = await serverTrpc();
  const [{ time_zone: timeZone }, { agents }, { owners }] = await Promise.all([trpc.schedule.get(), trpc.admin.agents.list(), trpc.admin.owners.list()]);
  let page: Page = { entries: [], next_cursor: null };
  // The days as typed (To inclusive) by the form's own rule, then the instants by the query's.
  let refusal: ReturnType<typeof filterRefusal> = dateRangeError(s);
  if (!refusal) {
    try {
      page = await trpc.admin.audit.query(auditQueryInput(s, PAGE_SIZE, timeZone));
    } catch (err) {
      refusal = filterRefusal(err);
      if (!refusal) throw err;
    }
  }
  const agentName = new Map(agents.map((a) => [a.agent_id, a.name]));
  const filtered = Boolean(s.action || s.outcome || s.actor_kind || s.agent_id || s.owner_email || s.from || s.to);
  return (
    <>
      <PageHeader
        title="Audit log"
        description={`Every scheduling decision and change, newest first: who acted, what was decided and why. Times in ${timeZone}.`}
        actions={
          <Button asChild variant="secondary">
            <a href={`/dashboard/admin/audit/export${auditSearchString(s)}`} download>
              <Download aria-hidden /> Export CSV
            </a>
          </Button>
        }
      />
      <AuditFilterForm
        key={auditSearchString(s)}
        values={s}
        agents={agents.map((a) => ({ agent_id: a.agent_id, name: a.name }))}
        owners={owners.map((o) => o.owner_email)}
        timeZone={timeZone}
        serverError={refusal}
      />
      {page.entries.length === 0 ? (
        <EmptyState title={refusal ? 'These filters cannot be applied' : filtered ? 'No decisions match these filters' : 'No decisions yet'}>
          {refusal ? 'Correct the dates above.' : filtered ? 'Widen the filters or clear them.' : 'Decisions appear here as soon as an agent holds, books or cancels time.'}
        </EmptyState>
      ) : (
        <ol className="flex flex-col gap-2" aria-label="Decisions">
          {page.entries.map((e) => (
            <li key={e.id} className="rounded-lg border border-line bg-surface p-3 text-sm" data-testid="audit-row">
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <Badge tone={e.outcome === 'accept' ? 'ok' : e.outcome === 'reject' ? 'danger' : 'warn'}>{outcomeWords(e.outcome)}</Badge>
                <span className="font-medium" data-testid="audit-what">
                  {e.words?.title ?? e.action}
                  {e.words?.subject && <span className="font-normal">: {e.words.subject}</span>}
                </span>
                <span className="font-mono text-xs text-muted">{e.action}</span>
                <span className="text-muted">
                  <When iso={e.at} timeZone={timeZone} />
                </span>
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
                <dt className="text-muted">Done by</dt>
                <dd data-testid="audit-actor">{actorOf(e, agentName)}</dd>
                {e.meeting_class && (
                  <>
                    <dt className="text-muted">Class</dt>
                    <dd>{e.meeting_class}</dd>
                  </>
                )}
                {e.words?.moved && (
                  <>
                    <dt className="text-muted">Moved</dt>
                    <dd data-testid="audit-moved">
                      from <When iso={e.words.moved.from.start} timeZone={timeZone} /> – <When iso={e.words.moved.from.end} timeZone={timeZone} /> to{' '}
                      <When iso={e.words.moved.to.start} timeZone={timeZone} /> – <When iso={e.words.moved.to.end} timeZone={timeZone} />
                    </dd>
                  </>
                )}
                {(e.words?.changes.length ?? 0) > 0 && (
                  <>
                    <dt className="text-muted">Changed</dt>
                    <dd>
                      <ul className="flex flex-col gap-0.5" data-testid="audit-changes">
                        {e.words!.changes.map((c) => (
                          <li key={c.field}>
                            <span className="text-muted">{c.field}:</span> <Value text={c.before} instant={c.instant} timeZone={timeZone} /> →{' '}
                            <Value text={c.after} instant={c.instant} timeZone={timeZone} />
                          </li>
                        ))}
                      </ul>
                    </dd>
                  </>
                )}
                {e.start && !e.words?.moved && (
                  <>
                    <dt className="text-muted">Time</dt>
                    <dd>
                      <When iso={e.start} timeZone={timeZone} /> – <When iso={e.end} timeZone={timeZone} />
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
                            <When iso={a.start} timeZone={timeZone} /> – <When iso={a.end} timeZone={timeZone} />
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
