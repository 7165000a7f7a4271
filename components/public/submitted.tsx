import { Card, CardContent } from '@/components/ui/card';
import { MailCheck } from './icons';

export type SubmittedInfo = { email: string; statusUrl: string };

/** After a submission: the next step, in plain words. */
export function Submitted({ info, ownerName }: { info: SubmittedInfo; ownerName: string | null }) {
  return (
    <Card role="status" aria-live="polite">
      <CardContent className="flex flex-col gap-3 pt-5 sm:pt-5">
        <h2 className="flex items-center gap-2 text-lg font-semibold">
          <MailCheck className="size-5 text-ok" aria-hidden />
          Check your email
        </h2>
        <p>
          We sent a link to <strong>{info.email}</strong>. Open it and confirm your address: only then does your request go to{' '}
          {ownerName ?? 'the calendar owner'} for review.
        </p>
        <p className="text-sm text-muted">The link works for 24 hours. The same email has the address of your request&rsquo;s status page.</p>
        <p>
          <a href={info.statusUrl}>See the status of your request</a>
        </p>
      </CardContent>
    </Card>
  );
}
