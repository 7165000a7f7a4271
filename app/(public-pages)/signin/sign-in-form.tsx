'use client';

import { useState } from 'react';
import { signIn } from 'next-auth/react';
import { KeyRound, Mail, MailCheck } from 'lucide-react';
import { Alert, Button, Field, Input, Tabs, TabsContent, TabsList, TabsTrigger, Form } from '@/components/ui';
import { useZodForm } from '@/components/ui/form';
import { LinkSignIn, PasswordSignIn } from '@/server/auth/schemas';

type Props = { callbackUrl: string; emailLinkEnabled: boolean; initialError?: string };

/** Password sign-in, and (when mail can be sent) a one-time link by email. */
export function SignInForm({ callbackUrl, emailLinkEnabled, initialError }: Props) {
  const [error, setError] = useState(initialError);
  return (
    <div className="flex flex-col gap-4">
      {error && <Alert tone="danger">{error}</Alert>}
      {emailLinkEnabled ? (
        <Tabs defaultValue="password" onValueChange={() => setError(undefined)}>
          <TabsList aria-label="How to sign in" className="mb-4">
            <TabsTrigger value="password">With password</TabsTrigger>
            <TabsTrigger value="link">With email link</TabsTrigger>
          </TabsList>
          <TabsContent value="password">
            <PasswordForm callbackUrl={callbackUrl} onError={setError} />
          </TabsContent>
          <TabsContent value="link">
            <LinkForm callbackUrl={callbackUrl} onError={setError} />
          </TabsContent>
        </Tabs>
      ) : (
        <PasswordForm callbackUrl={callbackUrl} onError={setError} />
      )}
    </div>
  );
}

function PasswordForm({ callbackUrl, onError }: { callbackUrl: string; onError: (m?: string) => void }) {
  const form = useZodForm(PasswordSignIn, { defaultValues: { email: '', password: '' } });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    onError(undefined);
    const res = await signIn('credentials', { ...values, redirect: false, callbackUrl });
    if (!res || res.error) {
      onError(res?.error === 'CredentialsSignin' || !res ? 'The email or password is wrong.' : 'Sign-in failed. Try again.');
      form.setValue('password', '');
      form.setFocus('password');
      return;
    }
    window.location.assign(callbackUrl);
  });
  return (
    <Form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <Field label="Email" error={errors.email?.message}>
        <Input type="email" autoComplete="username" {...form.register('email')} />
      </Field>
      <Field label="Password" error={errors.password?.message}>
        <Input type="password" autoComplete="current-password" {...form.register('password')} />
      </Field>
      <Button type="submit" disabled={isSubmitting}>
        <KeyRound aria-hidden />
        {isSubmitting ? 'Signing in…' : 'Sign in'}
      </Button>
    </Form>
  );
}

function LinkForm({ callbackUrl, onError }: { callbackUrl: string; onError: (m?: string) => void }) {
  const form = useZodForm(LinkSignIn, { defaultValues: { email: '' } });
  const [sentTo, setSentTo] = useState<string>();
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async ({ email }) => {
    onError(undefined);
    const res = await signIn('email', { email, redirect: false, callbackUrl });
    if (!res || res.error) {
      onError('The sign-in email could not be sent. Try again, or use your password.');
      return;
    }
    setSentTo(email);
  });
  if (sentTo) {
    return (
      <Alert tone="ok">
        <MailCheck aria-hidden />
        Check your email. If <strong>{sentTo}</strong> belongs to a calendar owner, a sign-in link is on its way. It works once, within 15 minutes.
      </Alert>
    );
  }
  return (
    <Form onSubmit={submit} noValidate className="flex flex-col gap-4">
      <Field label="Email" error={errors.email?.message} hint="We email you a link that signs you in once.">
        <Input type="email" autoComplete="email" {...form.register('email')} />
      </Field>
      <Button type="submit" disabled={isSubmitting}>
        <Mail aria-hidden />
        {isSubmitting ? 'Sending…' : 'Email me a sign-in link'}
      </Button>
    </Form>
  );
}
