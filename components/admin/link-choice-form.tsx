'use client';

import { useState, type ReactNode } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Button, Field, Select, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { showServerError } from '@/components/ui/server-error';
import { LinkPatchBody } from '@/server/schemas/publicAdmin';
import { LanguageChoices } from './language-options';

/** A link setting chosen from a list and saved on its own; the empty option means none. */
type ChoiceField = 'default_language' | 'away_redirect_link_id';
const ChoiceForm = LinkPatchBody.pick({ default_language: true, away_redirect_link_id: true });
type Choice = { link_id: string; alias: string; owner_email: string };

type ChoiceFormProps = {
  link: { link_id: string; alias: string };
  field: ChoiceField;
  initial: string | null;
  text: { form: string; label: string; hint: string; submit: string };
  children: ReactNode;
};

/**
 * One list-chosen link setting as its own small form: the patch of that one field through
 * `links.update`, a "Saved" status, the server's refusal inline (docs/public-scheduling.md).
 */
function LinkChoiceForm({ link, field, initial, text, children }: ChoiceFormProps) {
  const trpc = useTRPC();
  const router = useRouter();
  const update = useMutation(trpc.admin.publicScheduling.links.update.mutationOptions());
  const [saved, setSaved] = useState(false);
  const { register, handleSubmit, setError, formState, reset } = useZodForm(ChoiceForm.pick({ [field]: true } as Record<ChoiceField, true>), { defaultValues: { [field]: initial } });
  const onSubmit = handleSubmit(async (values) => {
    const value = values[field] ?? null;
    try {
      await update.mutateAsync({ link_id: link.link_id, patch: { [field]: value } });
      reset({ [field]: value });
      setSaved(true);
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', { invalid_request: field });
    }
  });
  return (
    <Form onSubmit={onSubmit} noValidate className="flex flex-wrap items-end gap-2" aria-label={`${text.form} of /${link.alias}`}>
      <Field label={text.label} hint={text.hint} error={formState.errors[field]?.message} className="min-w-60 flex-1">
        <Select {...register(field, { setValueAs: (v: string | null) => v || null, onChange: () => setSaved(false) })}>{children}</Select>
      </Field>
      <Button type="submit" variant="secondary" disabled={formState.isSubmitting || !formState.isDirty}>
        {text.submit}
      </Button>
      {formState.errors.root && <Alert tone="danger" className="w-full">{formState.errors.root.message}</Alert>}
      <p className="min-h-5 w-full text-sm text-ok" role="status">
        {saved ? 'Saved' : ''}
      </p>
    </Form>
  );
}

/**
 * While the link's owner is out of office (their schedule's out-of-office ranges), send requesters
 * to a colleague's link (docs/public-scheduling.md "Away"). The choices are the other owners' links.
 */
export function AwayRedirectForm({ link, choices }: { link: Choice & { away_redirect_link_id: string | null }; choices: Choice[] }) {
  const text = {
    form: 'Away redirect',
    label: 'While the owner is away, send requesters to',
    hint: 'Applies on the owner\'s out-of-office days (their schedule); the page there says who is away and until when.',
    submit: 'Save redirect',
  };
  return (
    <LinkChoiceForm link={link} field="away_redirect_link_id" initial={link.away_redirect_link_id} text={text}>
      <option value="">Nobody: keep this page</option>
      {choices
        .filter((c) => c.owner_email !== link.owner_email)
        .map((c) => (
          <option key={c.link_id} value={c.link_id}>
            /{c.alias} ({c.owner_email})
          </option>
        ))}
    </LinkChoiceForm>
  );
}

/**
 * The language of a link's requester pages when the requester's own choice (the switcher, `?lang=`)
 * and their browser name none of ours (docs/public-scheduling.md "Languages"); none: English.
 */
export function DefaultLanguageForm({ link }: { link: { link_id: string; alias: string; default_language: string | null } }) {
  const text = {
    form: 'Default language',
    label: 'Default language of the booking pages',
    hint: 'Used when the requester\'s browser asks for none of the ten languages; their own choice in the page always wins.',
    submit: 'Save language',
  };
  const initial = ChoiceForm.shape.default_language.safeParse(link.default_language).data ?? null;
  return (
    <LinkChoiceForm link={link} field="default_language" initial={initial} text={text}>
      <LanguageChoices />
    </LinkChoiceForm>
  );
}
