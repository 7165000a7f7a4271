'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Button, Field, Select } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { showServerError } from '@/components/ui/server-error';
import { LinkPatchBody } from '@/server/schemas/publicAdmin';

const AwayForm = LinkPatchBody.pick({ away_redirect_link_id: true });
type Choice = { link_id: string; alias: string; owner_email: string };

/**
 * While the link's owner is out of office (their schedule's out-of-office ranges), send requesters
 * to a colleague's link (docs/public-scheduling.md "Away"). The choices are the other owners' links.
 */
export function AwayRedirectForm({ link, choices }: { link: Choice & { away_redirect_link_id: string | null }; choices: Choice[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.admin.publicScheduling.links.update.mutationOptions());
  const [saved, setSaved] = useState(false);
  const colleagues = choices.filter((c) => c.owner_email !== link.owner_email);
  const { register, handleSubmit, setError, formState, reset } = useZodForm(AwayForm, { defaultValues: { away_redirect_link_id: link.away_redirect_link_id ?? null } });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await update.mutateAsync({ link_id: link.link_id, patch: { away_redirect_link_id: values.away_redirect_link_id ?? null } });
      reset({ away_redirect_link_id: values.away_redirect_link_id ?? null });
      setSaved(true);
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', { invalid_request: 'away_redirect_link_id' });
    }
  });
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-2" aria-label={`Away redirect of /${link.alias}`}>
      <Field label="While the owner is away, send requesters to" hint="Applies on the owner's out-of-office days (their schedule); the page there says who is away and until when." error={formState.errors.away_redirect_link_id?.message} className="min-w-60 flex-1">
        <Select {...register('away_redirect_link_id', { setValueAs: (v: string | null) => v || null, onChange: () => setSaved(false) })}>
          <option value="">Nobody: keep this page</option>
          {colleagues.map((c) => (
            <option key={c.link_id} value={c.link_id}>
              /{c.alias} ({c.owner_email})
            </option>
          ))}
        </Select>
      </Field>
      <Button type="submit" variant="secondary" disabled={formState.isSubmitting || !formState.isDirty}>
        Save redirect
      </Button>
      {formState.errors.root && <Alert tone="danger" className="w-full">{formState.errors.root.message}</Alert>}
      <p className="min-h-5 w-full text-sm text-ok" role="status">
        {saved ? 'Saved' : ''}
      </p>
    </form>
  );
}
