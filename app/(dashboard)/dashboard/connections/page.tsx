import type { Metadata } from 'next';
import { Alert, Card, CardContent, CardDescription, CardHeader, PageHeader, buttonClasses } from '@/components/ui';
import { CaldavConnect } from '@/components/connections/caldav-connect';
import { CalendarRows, type CalendarRow } from '@/components/connections/calendar-rows';
import { formatMoment } from '@/components/ui/time-format';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Connected calendars · Agent Scheduler' };

const PROVIDER_NAMES: Record<string, string> = { google: 'Google Calendar', microsoft: 'Microsoft 365' };

/** What went wrong in the OAuth flow, by the kind the callback route puts in ?error= (docs/dashboard.md). */
const OAUTH_ERRORS: Record<string, (name: string) => string> = {
  state_mismatch: (n) => `The answer from ${n} did not match the sign-in this browser started, so nothing was connected. Start again.`,
  no_flow: (n) => `This browser has no pending ${n} sign-in (it may have expired or cookies are blocked). Start again.`,
  other_session: (n) => `The ${n} sign-in was started by another dashboard session. Start again.`,
  expired: (n) => `The ${n} sign-in took longer than 10 minutes. Start again.`,
  access_denied: (n) => `Access to ${n} was not granted, so nothing was connected.`,
  provider_error: (n) => `${n} refused the sign-in. Start again, or ask your administrator to check the OAuth client.`,
  no_code: (n) => `${n} sent no authorization code. Start again.`,
  grant_refused: (n) => `${n} refused the authorization code (expired, already used, or issued for another client). Start again.`,
  provider_unavailable: (n) => `${n} could not be reached. Try again in a few minutes.`,
  not_configured: (n) => `${n} is not configured on this installation.`,
};

/** Connected calendars: calendars.list on the server; the actions and the CalDAV form on the client (docs/dashboard.md). */
export default async function ConnectionsPage({ searchParams }: { searchParams: Promise<{ connected?: string; error?: string; provider?: string }> }) {
  const q = await searchParams;
  const trpc = await serverTrpc();
  const [{ calendars, providers }, rules] = await Promise.all([trpc.calendars.list(), trpc.schedule.get()]);
  const rows: CalendarRow[] = calendars.map((c) => ({ ...c, last_synced_label: c.last_synced_at ? formatMoment(c.last_synced_at, 'minute', rules.time_zone) : null }));
  const providerName = PROVIDER_NAMES[q.provider ?? ''] ?? 'The provider';
  const connected = q.connected ? calendars.find((c) => c.calendar_id === q.connected) : undefined;
  return (
    <>
      <PageHeader
        title="Connected calendars"
        description="Events on these calendars count as busy time for agents; bookings are written to your primary calendar."
      />
      {connected && (
        <Alert tone="ok" className="mb-4">
          Connected {providerName}: {connected.display_name ?? connected.type}.
        </Alert>
      )}
      {q.error && (
        <Alert tone="danger" className="mb-4">
          {(OAUTH_ERRORS[q.error] ?? ((n: string) => `Connecting ${n} failed. Start again.`))(providerName)}
        </Alert>
      )}
      <section aria-labelledby="your-calendars" className="mb-8">
        <h2 id="your-calendars" className="mb-3 text-lg font-semibold">
          Your calendars
        </h2>
        <p className="mb-3 text-sm text-muted">Times in {rules.time_zone}.</p>
        <CalendarRows calendars={rows} oauthConfigured={providers} />
      </section>
      <section aria-labelledby="connect-calendar">
        <h2 id="connect-calendar" className="mb-3 text-lg font-semibold">
          Connect a calendar
        </h2>
        <div className="grid gap-4 lg:grid-cols-3">
          <Card className="lg:col-span-2">
            <CardHeader>
              <h3 className="text-base font-semibold leading-tight">
                CalDAV
              </h3>
              <CardDescription>Fastmail, iCloud, Nextcloud, Radicale and other CalDAV servers. Use an app password where your provider offers one.</CardDescription>
            </CardHeader>
            <CardContent>
              <CaldavConnect />
            </CardContent>
          </Card>
          <div className="flex flex-col gap-4">
            {(['google', 'microsoft'] as const).map((p) => (
              <Card key={p}>
                <CardHeader>
                  <h3 className="text-base font-semibold leading-tight">{PROVIDER_NAMES[p]}</h3>
                  <CardDescription>
                    {p === 'google' ? 'Your primary Google calendar, through Google sign-in.' : 'Your default Outlook calendar, through Microsoft sign-in.'}
                  </CardDescription>
                </CardHeader>
                <CardContent>
                  {providers[p] ? (
                    // A plain link: the route sends the browser on to the provider's sign-in.
                    <a href={`/dashboard/connections/connect/${p}`} className={buttonClasses('secondary', 'md')}>
                      Connect {PROVIDER_NAMES[p]}
                    </a>
                  ) : (
                    <p className="text-sm text-muted" data-testid={`${p}-not-configured`}>
                      Not available: this installation has no {PROVIDER_NAMES[p]} OAuth client configured ({p === 'google' ? 'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET' : 'MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET'}). Ask your administrator.
                    </p>
                  )}
                </CardContent>
              </Card>
            ))}
          </div>
        </div>
      </section>
    </>
  );
}
