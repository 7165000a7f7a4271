import { Alert } from '@/components/ui/alert';

/** The requesters' pages describe themselves, not the service's agent API (the root layout's description). */
export const REQUESTER_DESCRIPTION = 'Request a meeting: pick a time, confirm your email, follow the answer.';

/** What a public page shows when its rate limit is reached. */
export function Limited() {
  return (
    <div className="flex flex-col gap-4">
      <h1 className="text-2xl font-semibold tracking-tight">Please wait a moment</h1>
      <Alert tone="warn">Too many requests from your network. Please try again in a minute.</Alert>
    </div>
  );
}
