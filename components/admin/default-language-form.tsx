'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Button, Field } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { showServerError } from '@/components/ui/server-error';
import { LinkPatchBody } from '@/server/schemas/publicAdmin';
import { LanguageOptions } from './language-options';

const LanguageForm = LinkPatchBody.pick({ default_language: true });

/**
 * The language of a link's requester pages when the requester's own choice (the switcher, `?lang=`)
 * and their browser name none of ours (docs/public-scheduling.md "Languages"); none: English.
 */
export function DefaultLanguageForm({ link }: { link: { link_id: string; alias: string; default_language: string | null } }) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.admin.publicScheduling.links.update.mutationOptions());
  const [saved, setSaved] = useState(false);
  const initial = LanguageForm.shape.default_language.safeParse(link.default_language).data ?? null;
  const { register, handleSubmit, setError, formState, reset } = useZodForm(LanguageForm, { defaultValues: { default_language: initial } });
  const onSubmit = handleSubmit(async (values) => {
    try {
      await update.mutateAsync({ link_id: link.link_id, patch: { default_language: values.default_language ?? null } });
      reset({ default_language: values.default_language ?? null });
      setSaved(true);
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', { invalid_request: 'default_language' });
    }
  });
  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-2" aria-label={`Default language of /${link.alias}`}>
      <Field
        label="Default language of the booking pages"
        hint="Used when the requester's browser asks for none of the ten languages; their own choice in the page always wins."
        error={formState.errors.default_language?.message}
        className="min-w-60 flex-1"
      >
        <LanguageOptions {...register('default_language', { setValueAs: (v: string | null) => v || null, onChange: () => setSaved(false) })} />
      </Field>
      <Button type="submit" variant="secondary" disabled={formState.isSubmitting || !formState.isDirty}>
        Save language
      </Button>
      {formState.errors.root && <Alert tone="danger" className="w-full">{formState.errors.root.message}</Alert>}
      <p className="min-h-5 w-full text-sm text-ok" role="status">
        {saved ? 'Saved' : ''}
      </p>
    </form>
  );
}
