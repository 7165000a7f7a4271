import type { Metadata } from 'next';
import Link from 'next/link';
import { MailCheck } from 'lucide-react';
import { Card, CardContent, CardHeader } from '@/components/ui';
import { SIGN_IN_LINK_MINUTES } from '@/server/auth/signInLink';

export const metadata: Metadata = { title: 'Check your email · Agent Scheduler' };

/** Where Auth.js sends a browser that asked for a link without JavaScript (pages.verifyRequest). */
export default function CheckEmailPage() {
  return (
    <div className="mx-auto w-full max-w-sm">
      <Card>
        <CardHeader>
          <h1 className="flex items-center gap-2 text-xl font-semibold">
            <MailCheck className="size-5 text-ok" aria-hidden />
            Check your email
          </h1>
        </CardHeader>
        <CardContent className="flex flex-col gap-3 text-sm">
          <p>If the address belongs to a calendar owner, a sign-in link is on its way. It works once, within {SIGN_IN_LINK_MINUTES} minutes.</p>
          <p>
            <Link href="/signin">Back to sign in</Link>
          </p>
        </CardContent>
      </Card>
    </div>
  );
}
