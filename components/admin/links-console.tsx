'use client';

import { useEffect, useState } from 'react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useMutation, useQuery, useQueryClient, skipToken } from '@tanstack/react-query';
import { Check, Plus, X } from 'lucide-react';
import { Controller, useWatch } from 'react-hook-form';
import { useTRPC } from '@/components/trpc-provider';
import { Alert, Badge, Button, Card, CardContent, CardDescription, CardHeader, CardTitle, Field, Input, Select, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { Email } from '@/server/schemas/common';
import { LinkCreateBody } from '@/server/schemas/publicAdmin';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { EmptyState } from './empty-state';
import { MeetingTypeDialog, type HostChoices, type MeetingTypeRow } from './meeting-type-dialog';
import { showServerError } from '@/components/ui/server-error';
import { ShareUrl } from './share-url';
import { AwayRedirectForm, DefaultLanguageForm } from './link-choice-form';
import { EmbedSnippet } from './embed-snippet';
import { LanguageOptions } from './language-options';

type TypeAllocation = { allocation_id: string; audience: string | null; limit: number; period: 'day' | 'week' | 'month'; usage: { used: number } | null };
export type LinkRow = { link_id: string; alias: string; title: string | null; url: string; page_url: string; owner_email: string; away_redirect_link_id: string | null; default_language: string | null; meeting_types: (MeetingTypeRow & { allocations?: TypeAllocation[] })[] };

const THIS_PERIOD = { day: 'today', week: 'this week', month: 'this month' } as const;

const LinkForm = LinkCreateBody.extend({ owner_email: Email });

function useDebounced(value: string, ms: number): string {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** Public links (alias checked as you type) and their meeting types. */
export function LinksConsole({ links, ownerEmails, classNames, pools, verifiedDomains = [] }: { links: LinkRow[]; ownerEmails: string[]; classNames: string[]; pools: HostChoices['pools']; verifiedDomains?: string[] }) {
  const hostChoices: HostChoices = { owners: ownerEmails, pools };
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
      <div className="flex flex-col gap-4">
        {links.length === 0 ? (
          <EmptyState title="No links yet">
            Create a link with a short alias: requesters open it to propose meetings with an owner. Then add a meeting type such as a 30-minute intro call.
          </EmptyState>
        ) : (
          <ul className="flex flex-col gap-4" aria-label="Links">
            {links.map((l) => (
              <li key={l.link_id}>
                <LinkCard link={l} classNames={classNames} hostChoices={hostChoices} allLinks={links} verifiedDomains={verifiedDomains} />
              </li>
            ))}
          </ul>
        )}
      </div>
      <NewLinkCard ownerEmails={ownerEmails} />
    </div>
  );
}

function NewLinkCard({ ownerEmails }: { ownerEmails: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const create = useMutation(trpc.admin.publicScheduling.links.create.mutationOptions());
  const { register, handleSubmit, setError, formState, control, reset } = useZodForm(LinkForm, { defaultValues: { owner_email: ownerEmails[0] ?? '', alias: '', title: undefined, default_language: null } });
  const alias = useDebounced(useWatch({ control, name: 'alias' }) ?? '', 300);
  const queryClient = useQueryClient();
  const check = useQuery(trpc.admin.publicScheduling.links.checkAlias.queryOptions(alias ? { alias } : skipToken, { staleTime: 0 }));
  const onSubmit = handleSubmit(async (values) => {
    try {
      await create.mutateAsync({ ...values, title: values.title || undefined });
      reset({ owner_email: values.owner_email, alias: '', title: undefined, default_language: null });
      await queryClient.invalidateQueries(trpc.admin.publicScheduling.links.checkAlias.pathFilter());
      router.refresh();
    } catch (err) {
      showServerError(err, setError, 'root', { invalid_alias: 'alias', duplicate_alias: 'alias', OWNER_NOT_FOUND: 'owner_email' });
    }
  });
  const aliasError = formState.errors.alias?.message ?? (check.data && !check.data.available && check.data.alias === alias ? check.data.message : undefined);
  return (
    <Card className="lg:self-start">
      <CardHeader>
        <CardTitle>New link</CardTitle>
      </CardHeader>
      <CardContent>
        <Form onSubmit={onSubmit} noValidate className="flex flex-col gap-4">
          <Field label="Owner" error={formState.errors.owner_email?.message}>
            <Controller
              control={control}
              name="owner_email"
              render={({ field }) => (
                <Select value={field.value ?? ''} onChange={(e) => field.onChange(e.target.value)} onBlur={field.onBlur} name={field.name} ref={field.ref} placeholder="Choose an owner">
                  {ownerEmails.map((e) => (
                    <option key={e} value={e}>
                      {e}
                    </option>
                  ))}
                </Select>
              )}
            />
          </Field>
          <Field label="Alias" hint="The address requesters open: lowercase letters, digits and hyphens, 3 to 64." error={aliasError}>
            <Input autoComplete="off" spellCheck={false} {...register('alias')} />
          </Field>
          <p className="-mt-2 min-h-5 text-sm" aria-live="polite" data-testid="alias-status">
            {check.data?.available && check.data.alias === alias && (
              <span className="text-ok">
                <Check className="mr-1 inline size-4" aria-hidden />
                {alias} is available
              </span>
            )}
            {check.data && !check.data.available && check.data.alias === alias && (
              <span className="text-danger">
                <X className="mr-1 inline size-4" aria-hidden />
                Not available
              </span>
            )}
          </p>
          <Field label="Title (optional)" error={formState.errors.title?.message}>
            <Input autoComplete="off" {...register('title', { setValueAs: (v) => v || undefined })} />
          </Field>
          <Field label="Default language (optional)" hint="The booking pages' language when the requester's browser asks for none of ours." error={formState.errors.default_language?.message}>
            <LanguageOptions {...register('default_language', { setValueAs: (v: string | null) => v || null })} />
          </Field>
          {formState.errors.root && <Alert tone="danger">{formState.errors.root.message}</Alert>}
          <div>
            <Button type="submit" disabled={formState.isSubmitting}>
              <Plus aria-hidden /> Create link
            </Button>
          </div>
        </Form>
      </CardContent>
    </Card>
  );
}

function LinkCard({ link, classNames, hostChoices, allLinks, verifiedDomains }: { link: LinkRow; classNames: string[]; hostChoices: HostChoices; allLinks: LinkRow[]; verifiedDomains: string[] }) {
  const trpc = useTRPC();
  const router = useRouter();
  const remove = useMutation(trpc.admin.publicScheduling.links.delete.mutationOptions());
  return (
    <Card data-testid={`link-${link.alias}`}>
      <CardHeader>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <CardTitle>
            <span className="font-mono">/{link.alias}</span>
          </CardTitle>
          <ConfirmButton
            label={`Delete link ${link.alias}`}
            title={`Delete /${link.alias}?`}
            description="Requesters can no longer open it, and the alias stays taken so an old address never leads to someone else."
            confirmLabel="Delete link"
            onConfirm={async () => {
              await remove.mutateAsync({ link_id: link.link_id });
              router.refresh();
            }}
          >
            Delete
          </ConfirmButton>
        </div>
        <CardDescription>
          {link.title ? `${link.title} · ` : ''}
          {link.owner_email}
        </CardDescription>
        <ShareUrl url={link.page_url} label={`the booking page /${link.alias}`} />
      </CardHeader>
      <CardContent className="flex flex-col gap-3">
        {link.meeting_types.length === 0 ? (
          <p className="text-sm text-muted">No meeting types yet: add one so requesters have something to book.</p>
        ) : (
          <ul className="flex flex-col divide-y divide-line rounded-md border border-line" aria-label={`Meeting types of ${link.alias}`}>
            {link.meeting_types.map((t) => (
              <li key={t.slug} className="flex flex-wrap items-center justify-between gap-2 px-3 py-2 text-sm">
                <div className="min-w-0">
                  <p className="font-medium">{t.title}</p>
                  <p className="text-xs text-muted">
                    {t.duration_minutes.join(' / ')} min · {t.meeting_class} · {t.visibility}
                    {t.audience ? ` (${t.audience})` : ''} · preempt {t.effective_preempt_policy === 'never' ? 'never' : 'lower'}
                    {t.attendee_limit ? ` · up to ${t.attendee_limit} people` : ''}
                    {t.min_notice_hours ? ` · ${t.min_notice_hours} h notice` : ''}
                    {t.buffer_before_minutes || t.buffer_after_minutes ? ` · ${t.buffer_before_minutes ?? 0}/${t.buffer_after_minutes ?? 0} min kept free before/after` : ''}
                    {t.book_instantly ? ' · books instantly' : ''}
                    {t.repeat_weekly_max_weeks ? ` · repeats weekly, up to ${t.repeat_weekly_max_weeks} weeks` : ''}
                    {t.host_mode === 'collective' ? ` · hosts: ${t.host_emails?.join(', ')}` : t.host_mode === 'pool' ? ' · one host from a pool' : ''}
                    {t.location ? ' · has a location' : ''}
                    {t.video ? ` · video: ${t.video.provider === 'google_meet' ? 'Google Meet' : t.video.provider === 'microsoft_teams' ? 'Microsoft Teams' : 'a fixed link'}` : ''}
                  </p>
                  <div className="mt-1">
                    <ShareUrl url={`${link.page_url}/${t.slug}`} label={`the page of ${t.title}`} />
                  </div>
                  {t.allocations?.map((a) => (
                    <p key={a.allocation_id} className="text-xs" data-testid={`type-allocation-${t.slug}`}>
                      <Link href="/dashboard/admin/requesters" className="underline">
                        Allocation
                      </Link>
                      {a.audience ? ` (${a.audience})` : ''}: {a.usage ? `${a.usage.used} of ${a.limit} used ${THIS_PERIOD[a.period]}` : `at most ${a.limit} per ${a.period}`}
                    </p>
                  ))}
                </div>
                <div className="flex items-center gap-2">
                  <MeetingTypeDialog linkId={link.link_id} alias={link.alias} classNames={classNames} hostChoices={hostChoices} existing={t} />
                  {!t.enabled ? <Badge tone="neutral">disabled</Badge> : t.published ? <Badge tone="ok">published</Badge> : <Badge tone="warn">draft</Badge>}
                </div>
              </li>
            ))}
          </ul>
        )}
        <MeetingTypeDialog linkId={link.link_id} alias={link.alias} classNames={classNames} hostChoices={hostChoices} />
        <AwayRedirectForm link={link} choices={allLinks} />
        <DefaultLanguageForm link={link} />
        <EmbedSnippet pageUrl={link.page_url} alias={link.alias} verifiedDomains={verifiedDomains} />
      </CardContent>
    </Card>
  );
}
