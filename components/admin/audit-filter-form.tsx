'use client';

import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { Button, Field, Input, Select } from '@/components/ui';
import { AUDIT_ACTION_WORDS, AUDIT_OUTCOME_WORDS } from '@/server/domain/audit/words';
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, AUDIT_OUTCOMES, dateRangeError, type AuditSearch } from './audit-filters';

const ACTOR_LABELS: Record<(typeof AUDIT_ACTOR_KINDS)[number], string> = { agent: 'An agent', owner: 'An owner (dashboard)', requester: 'A requester', system: 'The system' };

type AuditFilterFormProps = {
  values: AuditSearch;
  agents: { agent_id: string; name: string }[];
  owners: string[];
  timeZone: string;
  /** The server's refusal of the filters (a reversed range), shown where the form shows its own. */
  serverError?: { field: 'from' | 'to'; message: string } | null;
};

/**
 * The audit log's filters: a plain GET form (a filtered view can be shared by its
 * address) that checks the date range with the server's own rule before it submits, and
 * shows the server's refusal in the same place when it gets one.
 */
export function AuditFilterForm({ values, agents, owners, timeZone, serverError }: AuditFilterFormProps) {
  const [error, setError] = useState(serverError ?? null);
  const filtered = Boolean(values.action || values.outcome || values.actor_kind || values.agent_id || values.owner_email || values.from || values.to);

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    const data = new FormData(e.currentTarget);
    const problem = dateRangeError({ from: String(data.get('from') ?? ''), to: String(data.get('to') ?? '') });
    setError(problem);
    if (problem) e.preventDefault();
  }

  return (
    <form method="get" noValidate onSubmit={onSubmit} className="mb-5 grid grid-cols-2 gap-3 rounded-lg border border-line bg-surface p-3 sm:grid-cols-4 lg:grid-cols-8" aria-label="Filter the audit log">
      <Field label="Action">
        <Select name="action" defaultValue={values.action ?? ''}>
          <option value="">Any</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {AUDIT_ACTION_WORDS[a]}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Outcome">
        <Select name="outcome" defaultValue={values.outcome ?? ''}>
          <option value="">Any</option>
          {AUDIT_OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {AUDIT_OUTCOME_WORDS[o]}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Done by">
        <Select name="actor_kind" defaultValue={values.actor_kind ?? ''}>
          <option value="">Anyone</option>
          {AUDIT_ACTOR_KINDS.map((k) => (
            <option key={k} value={k}>
              {ACTOR_LABELS[k]}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Agent">
        <Select name="agent_id" defaultValue={values.agent_id ?? ''}>
          <option value="">Any</option>
          {agents.map((a) => (
            <option key={a.agent_id} value={a.agent_id}>
              {a.name}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Owner">
        <Select name="owner_email" defaultValue={values.owner_email ?? ''}>
          <option value="">Any</option>
          {owners.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </Select>
      </Field>
      <Field label="From" hint={timeZone} error={error?.field === 'from' ? error.message : undefined}>
        <Input type="date" name="from" defaultValue={values.from ?? ''} />
      </Field>
      <Field label="To" hint={`${timeZone}, inclusive`} error={error?.field === 'to' ? error.message : undefined}>
        <Input type="date" name="to" defaultValue={values.to ?? ''} />
      </Field>
      <div className="col-span-2 flex items-end gap-2 sm:col-span-1">
        <Button type="submit">Filter</Button>
        {filtered && (
          <Button asChild variant="ghost">
            <Link href="/dashboard/admin/audit">Clear</Link>
          </Button>
        )}
      </div>
    </form>
  );
}
