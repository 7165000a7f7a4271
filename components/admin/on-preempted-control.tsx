'use client';

import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { Controller } from 'react-hook-form';
import { useTRPC } from '@/components/trpc-provider';
import { Button, Field, Select, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { showServerError } from '@/components/ui/server-error';
import { MeetingClassPatchBody } from '@/server/schemas/admin';

/** The choices of `on_preempted` in words (docs/arbitration.md "Bumped meetings rebooked"); '' stands for null. */
const ON_PREEMPTED_CHOICES = [
  { value: '', label: 'Nothing: the agent is told' },
  { value: 'hold_nearest', label: 'Hold the nearest free time for its agent' },
] as const;

/** `on_preempted` as a select a form controls: '' in the page, null in the schema. */
export function OnPreemptedSelect({ value, onChange, onBlur, name }: { value: 'hold_nearest' | null | undefined; onChange: (v: 'hold_nearest' | null) => void; onBlur?: () => void; name: string }) {
  return (
    <Select name={name} value={value ?? ''} onChange={(e) => onChange(e.target.value === 'hold_nearest' ? 'hold_nearest' : null)} onBlur={onBlur}>
      {ON_PREEMPTED_CHOICES.map((c) => (
        <option key={c.value} value={c.value}>
          {c.label}
        </option>
      ))}
    </Select>
  );
}

/** One class's "when bumped" setting, changed in place (admin.meetingClasses.update, audited meeting_class.update). */
export function OnPreemptedControl({ name, value }: { name: string; value: 'hold_nearest' | null }) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.admin.meetingClasses.update.mutationOptions());
  const { handleSubmit, control, setError, formState } = useZodForm(MeetingClassPatchBody, { defaultValues: { on_preempted: value } });
  const onSubmit = handleSubmit(async (change) => {
    try {
      await update.mutateAsync({ name, change });
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'on_preempted', {});
    }
  });
  return (
    <Form onSubmit={onSubmit} noValidate className="flex items-end gap-2">
      <Field label={`When a ${name} meeting is bumped`} error={formState.errors.on_preempted?.message ?? formState.errors.root?.message}>
        <Controller control={control} name="on_preempted" render={({ field }) => <OnPreemptedSelect value={field.value} onChange={field.onChange} onBlur={field.onBlur} name={field.name} />} />
      </Field>
      <Button type="submit" variant="secondary" disabled={formState.isSubmitting || !formState.isDirty}>
        Save
      </Button>
    </Form>
  );
}
