import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { Card, CardContent, CardDescription, CardHeader } from '@/components/ui';
import { emailSignInEnabled } from '@/server/auth/signInLink';
import { dashboardReturnPath } from '@/server/auth/returnPath';
import { serverTrpc } from '@/server/trpc/caller';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in · Agent Scheduler' };
export const dynamic = 'force-dynamic';

/** What Auth.js's `?error=` codes mean to an owner. */
const ERRORS: Record<string, string> = {
  CredentialsSignin: 'The email or password is wrong.',
  Verification: 'That sign-in link has expired or was already used. Ask for a new one.',
  AccessDenied: 'That address cannot sign in to the dashboard.',
  EmailSignin: 'The sign-in email could not be sent. Try again, or use your password.',
  SessionRequired: 'Sign in to see that page.',
};

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const sp = await searchParams;
  const callbackUrl = dashboardReturnPath(sp.callbackUrl);
  const me = await (await serverTrpc()).session.me().catch(() => null);
  if (me) redirect(callbackUrl);
  const code = typeof sp.error === 'string' ? sp.error : undefined;
  const error = code ? (ERRORS[code] ?? 'Sign-in failed. Try again.') : undefined;
  return (
    <div className="mx-auto w-full max-w-sm">
      <Card>
        <CardHeader>
          <h1 className="text-xl font-semibold">Sign in</h1>
          <CardDescription>The dashboard for calendar owners: review meeting requests and see your week.</CardDescription>
        </CardHeader>
        <CardContent>
          <SignInForm callbackUrl={callbackUrl} emailLinkEnabled={emailSignInEnabled()} initialError={error} />
        </CardContent>
      </Card>
    </div>
  );
}
