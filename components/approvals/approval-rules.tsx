'use client';

import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { Controller } from 'react-hook-form';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Button, Card, CardContent, CardHeader, CardTitle, Field, Select, Form } from '@/components/ui';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { useZodForm } from '@/components/ui/form';
import { showServerError } from '@/components/ui/server-error';
import { OwnApprovalRuleForm } from '@/server/schemas/approvals';
import type { ApprovalPolicyView } from '@/server/domain/approvals/policyService';

type Props = {
  rules: ApprovalPolicyView[];
  agents: { agent_id: string; name: string }[];
  meetingClasses: { name: string; priority: number }[];
};

/** What a rule covers, in words. */
function ruleText(r: ApprovalPolicyView): string {
  const who = r.agent_id ? (r.agent_name ?? 'an agent that was deleted') : 'Any agent';
  return r.meeting_class ? `${who}, ${r.meeting_class} meetings` : `${who}, every meeting`;
}

/**
 * The signed-in owner's approval rules (approvals.list / add / remove): which agents' or meeting
 * classes' bookings on their calendar wait for their approval in the inbox (docs/dashboard.md "Approvals").
 */
export function ApprovalRules({ rules, agents, meetingClasses }: Props) {
  const trpc = useTRPC();
  const router = useRouter();
  const add = useMutation(trpc.approvals.add.mutationOptions());
  const remove = useMutation(trpc.approvals.remove.mutationOptions());
  const { handleSubmit, setError, formState, control, reset } = useZodForm(OwnApprovalRuleForm, { defaultValues: { agent_id: '', meeting_class: '' } });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await add.mutateAsync({ agent_id: values.agent_id || undefined, meeting_class: values.meeting_class || undefined });
      reset();
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'agent_id', { APPROVAL_POLICY_EXISTS: 'agent_id', AGENT_NOT_FOUND: 'agent_id', INVALID_MEETING_CLASS: 'meeting_class' });
    }
  });
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <section aria-labelledby="rules-title" className="flex flex-col gap-3">
        <h2 id="rules-title" className="text-base font-semibold">
          Bookings that wait for you
        </h2>
        {rules.length === 0 ? (
          <Card>
            <CardContent className="py-6 text-sm text-muted">No rules: agents book your time directly, as arbitration allows.</CardContent>
          </Card>
        ) : (
          <ul className="flex flex-col gap-2" aria-label="Approval rules">
            {rules.map((r) => (
              <li key={r.policy_id} data-testid="approval-rule" className="flex flex-wrap items-center justify-between gap-2 rounded-lg border border-line bg-surface px-3 py-2">
                <span className="text-sm font-medium">{ruleText(r)}</span>
                <ConfirmButton
                  label={`Remove: ${ruleText(r)}`}
                  variant="ghost"
                  size="sm"
                  title="Remove this rule?"
                  description="Bookings it covered go straight to your calendar again. Requests already waiting stay in your inbox."
                  confirmLabel="Remove rule"
                  onConfirm={async () => {
                    await remove.mutateAsync({ policy_id: r.policy_id });
                    router.refresh();
                  }}
                >
                  Remove
                </ConfirmButton>
              </li>
            ))}
          </ul>
        )}
        <p className="text-sm text-muted">
          A booking a rule covers does not go straight to your calendar: its time is held, the request appears in your inbox, and the agent hears your decision.
        </p>
      </section>
      <Card className="lg:self-start">
        <CardHeader>
          <CardTitle>Require approval</CardTitle>
        </CardHeader>
        <CardContent>
          <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
            <Field label="Agent" hint="Its bookings on your calendar wait for you." error={formState.errors.agent_id?.message}>
              <Controller
                control={control}
                name="agent_id"
                render={({ field }) => (
                  <Select value={field.value} onChange={(e) => field.onChange(e.target.value)} onBlur={field.onBlur} name={field.name} ref={field.ref}>
                    <option value="">Any agent</option>
                    {agents.map((a) => (
                      <option key={a.agent_id} value={a.agent_id}>
                        {a.name}
                      </option>
                    ))}
                  </Select>
                )}
              />
            </Field>
            <Field label="Meeting class" hint="Only meetings of this class (with an agent: only that agent's)." error={formState.errors.meeting_class?.message}>
              <Controller
                control={control}
                name="meeting_class"
                render={({ field }) => (
                  <Select value={field.value} onChange={(e) => field.onChange(e.target.value)} onBlur={field.onBlur} name={field.name} ref={field.ref}>
                    <option value="">Any class</option>
                    {meetingClasses.map((c) => (
                      <option key={c.name} value={c.name}>
                        {c.name}
                      </option>
                    ))}
                  </Select>
                )}
              />
            </Field>
            {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
            <div>
              <Button type="submit" disabled={formState.isSubmitting}>
                Require approval
              </Button>
            </div>
          </Form>
        </CardContent>
      </Card>
    </div>
  );
}
