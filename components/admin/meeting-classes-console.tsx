'use client';

import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { Controller } from 'react-hook-form';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Button, Card, CardContent, CardHeader, CardTitle, Field, Input, Select, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { MeetingClassCreateBody } from '@/server/schemas/admin';
import { EmptyState } from './empty-state';
import { showServerError } from '@/components/ui/server-error';
import type { MeetingClassView } from '@/server/domain/meetingClassService';
import { OnPreemptedControl, OnPreemptedSelect } from './on-preempted-control';

/** A class as admin.meetingClasses.list answers it (the domain's view). */
export type MeetingClassRow = MeetingClassView;

/** "10 min before, 5 min after", or "None". */
function buffersText(c: Pick<MeetingClassRow, 'buffer_before_minutes' | 'buffer_after_minutes'>): string {
  const parts = [c.buffer_before_minutes ? `${c.buffer_before_minutes} min before` : '', c.buffer_after_minutes ? `${c.buffer_after_minutes} min after` : ''].filter(Boolean);
  return parts.length ? parts.join(', ') : 'None';
}

/** "1 day, 1 h before", or "None". */
function remindersText(offsets: number[]): string {
  if (!offsets.length) return 'None';
  return `${offsets.map((m) => (m % 1440 === 0 ? `${m / 1440} d` : m % 60 === 0 ? `${m / 60} h` : `${m} min`)).join(', ')} before`;
}

/** "1440, 60" as minutes; what is not a number stays in the list as NaN for the schema to refuse. */
function offsetsFromText(text: unknown): number[] {
  if (Array.isArray(text)) return text.map(Number);
  return String(text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map(Number);
}

/** Meeting classes: the list by priority and a form for a new class (admin.meetingClasses.create). */
export function MeetingClassesConsole({ classes }: { classes: MeetingClassRow[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.meetingClasses.create.mutationOptions());
  const { register, handleSubmit, setError, formState, control, reset } = useZodForm(MeetingClassCreateBody, {
    defaultValues: { name: '', priority: 50, preempt_policy: 'preempt_lower', sacred_meeting_age_hours: 24, buffer_before_minutes: 0, buffer_after_minutes: 0, reminder_offsets_minutes: [], on_preempted: null },
  });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await create.mutateAsync(values);
      reset();
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'name', { MEETING_CLASS_ALREADY_EXISTS: 'name' });
    }
  });
  const sorted = [...classes].sort((a, b) => b.priority - a.priority || a.name.localeCompare(b.name));
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <section aria-labelledby="classes-title" className="flex flex-col gap-3">
        <h2 id="classes-title" className="text-base font-semibold">
          Classes, highest priority first
        </h2>
        {sorted.length === 0 ? (
          <EmptyState title="No meeting classes yet">
            Agents name a class with every hold and booking. Create a few, for example board (90), customer (60), internal (30) and focus (10).
          </EmptyState>
        ) : (
          <div className="overflow-x-auto rounded-lg border border-line bg-surface">
            <table className="w-full text-left text-sm">
              <thead className="bg-surface-2 text-xs text-muted">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">Name</th>
                  <th scope="col" className="px-3 py-2 font-medium">Priority</th>
                  <th scope="col" className="px-3 py-2 font-medium">May move lower ones</th>
                  <th scope="col" className="px-3 py-2 font-medium">Sacred after</th>
                  <th scope="col" className="px-3 py-2 font-medium">Kept free</th>
                  <th scope="col" className="px-3 py-2 font-medium">Reminders</th>
                  <th scope="col" className="px-3 py-2 font-medium">When bumped</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-line">
                {sorted.map((c) => (
                  <tr key={c.name} id={`class-${c.name}`} className="target:bg-accent-soft">
                    <td className="px-3 py-2 font-medium">{c.name}</td>
                    <td className="px-3 py-2 tabular-nums">{c.priority}</td>
                    <td className="px-3 py-2">{c.preempt_policy === 'preempt_lower' ? 'Yes' : 'Never'}</td>
                    <td className="px-3 py-2">{c.sacred_meeting_age_hours} h</td>
                    <td className="px-3 py-2">{buffersText(c)}</td>
                    <td className="px-3 py-2">{remindersText(c.reminder_offsets_minutes)}</td>
                    <td className="px-3 py-2">
                      <OnPreemptedControl name={c.name} value={c.on_preempted} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Card>
          <CardHeader>
            <CardTitle>What priority means</CardTitle>
          </CardHeader>
          <CardContent className="flex flex-col gap-2 text-sm">
            <p>When two requests want the same time, the meeting with the higher priority wins. Equal priorities never displace each other: the first one keeps its time.</p>
            <p>
              A class that <strong>may move lower ones</strong> can take time already held or booked by a lower-priority meeting, if the agent asking also has the preempt
              permission. The moved meeting&apos;s agent is told.
            </p>
            <p>
              A booking becomes <strong>sacred</strong> once it has existed for the class&apos;s &ldquo;sacred after&rdquo; hours: from then on nothing moves it, whatever its
              priority.
            </p>
            <p>
              <strong>Reminders</strong> go out by mail to each meeting&apos;s attendees at the chosen times before it, in each reader&apos;s time zone; the booking&apos;s
              agent is told too.
            </p>
            <p>
              <strong>When bumped</strong>: a class may ask that a booking of it moved aside by a higher priority get the nearest free time held for its agent at
              once (for 10 minutes), to confirm or release like any hold.
            </p>
            <p>
              Time <strong>kept free</strong> before and after a meeting is a buffer: no other meeting may start or end in it, though two meetings&apos; buffers may
              overlap.
            </p>
          </CardContent>
        </Card>
      </section>
      <Card className="lg:self-start">
        <CardHeader>
          <CardTitle>New class</CardTitle>
        </CardHeader>
        <CardContent>
          <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
            <Field label="Name" error={formState.errors.name?.message}>
              <Input autoComplete="off" {...register('name')} />
            </Field>
            <Field label="Priority" hint="-1000 to 1000; higher wins." error={formState.errors.priority?.message}>
              <Input type="number" {...register('priority', { valueAsNumber: true })} />
            </Field>
            <Field label="Moving lower-priority meetings" error={formState.errors.preempt_policy?.message}>
              <Controller
                control={control}
                name="preempt_policy"
                render={({ field }) => (
                  <Select value={field.value ?? ''} onChange={(e) => field.onChange(e.target.value)} onBlur={field.onBlur} name={field.name} ref={field.ref}>
                    <option value="preempt_lower">May move lower-priority meetings</option>
                    <option value="never">Never moves anything</option>
                  </Select>
                )}
              />
            </Field>
            <Field label="Sacred after (hours)" hint="A booking this old is never moved." error={formState.errors.sacred_meeting_age_hours?.message}>
              <Input type="number" min="0" {...register('sacred_meeting_age_hours', { valueAsNumber: true })} />
            </Field>
            <Field label="Free before (minutes)" hint="Kept free before each meeting of the class: 0 to 240." error={formState.errors.buffer_before_minutes?.message}>
              <Input type="number" min="0" max="240" step="5" {...register('buffer_before_minutes', { valueAsNumber: true })} />
            </Field>
            <Field label="Free after (minutes)" hint="Kept free after each meeting of the class: 0 to 240." error={formState.errors.buffer_after_minutes?.message}>
              <Input type="number" min="0" max="240" step="5" {...register('buffer_after_minutes', { valueAsNumber: true })} />
            </Field>
            <Field
              label="Reminders (minutes before)"
              hint="Attendees are mailed this long before each meeting, e.g. 1440, 60 for a day and an hour before: at most 5, each 5 to 10080."
              error={formState.errors.reminder_offsets_minutes?.message ?? formState.errors.reminder_offsets_minutes?.find?.((e) => e)?.message}
            >
              <Input inputMode="numeric" autoComplete="off" {...register('reminder_offsets_minutes', { setValueAs: offsetsFromText })} />
            </Field>
            <Field label="When a meeting of the class is bumped" hint="Its agent may get the nearest free time held at once." error={formState.errors.on_preempted?.message}>
              <Controller control={control} name="on_preempted" render={({ field }) => <OnPreemptedSelect value={field.value} onChange={field.onChange} onBlur={field.onBlur} name={field.name} />} />
            </Field>
            {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
            <div>
              <Button type="submit" disabled={formState.isSubmitting}>
                Create class
              </Button>
            </div>
          </Form>
        </CardContent>
      </Card>
    </div>
  );
}
