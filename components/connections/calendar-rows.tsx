'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { readServerError } from '@/components/ui/server-error';
import { Alert, Badge, Button, Card, buttonClasses, type BadgeTone } from '@/components/ui';
import { ReconnectCaldav } from './reconnect-caldav';

export type CalendarRow = {
  calendar_id: string;
  type: string;
  display_name: string | null;
  is_primary: boolean;
  status: 'active' | 'disconnected' | 'reauth_required';
  check_conflicts: boolean;
  last_synced_at: string | null;
  last_sync_error: string | null;
  /** last_synced_at in the owner's zone, formatted on the server. */
  last_synced_label: string | null;
};

const TYPE_NAMES: Record<string, string> = { internal: 'Internal', caldav: 'CalDAV', google: 'Google Calendar', microsoft: 'Microsoft 365' };
const STATUS: Record<CalendarRow['status'], { label: string; tone: BadgeTone }> = {
  active: { label: 'Active', tone: 'ok' },
  reauth_required: { label: 'Reconnect needed', tone: 'danger' },
  disconnected: { label: 'Disconnected', tone: 'neutral' },
};

/** The owner's calendars, each with its status, last sync and error, and its actions (calendars.update / disconnect / reconnect). */
export function CalendarRows({ calendars, oauthConfigured }: { calendars: CalendarRow[]; oauthConfigured: Record<'google' | 'microsoft', boolean> }) {
  return (
    <ul className="flex flex-col gap-3" aria-label="Calendars">
      {calendars.map((c) => (
        <li key={c.calendar_id}>
          <CalendarItem calendar={c} oauthConfigured={oauthConfigured} />
        </li>
      ))}
    </ul>
  );
}

function CalendarItem({ calendar: c, oauthConfigured }: { calendar: CalendarRow; oauthConfigured: Record<'google' | 'microsoft', boolean> }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  // Shown at once; put back if the change is refused.
  const [checkConflicts, setCheckConflicts] = useState(c.check_conflicts);
  const update = useMutation(trpc.calendars.update.mutationOptions());
  const disconnect = useMutation(trpc.calendars.disconnect.mutationOptions());
  const name = c.display_name ?? TYPE_NAMES[c.type] ?? c.type;
  const provider = c.type !== 'internal';
  const status = STATUS[c.status];
  const headingId = `calendar-${c.calendar_id}`;

  const change = async (patch: { make_primary?: true; check_conflicts?: boolean }) => {
    setError(null);
    try {
      await update.mutateAsync({ calendar_id: c.calendar_id, ...patch });
      router.refresh();
      return true;
    } catch (err) {
      setError(readServerError(err).message);
      return false;
    }
  };

  return (
    <Card className="p-4" aria-labelledby={headingId} role="group" data-testid="calendar-row">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 id={headingId} className="truncate font-semibold" title={name}>
            {name}
          </h3>
          <div className="mt-1 flex flex-wrap items-center gap-1.5">
            <Badge>{TYPE_NAMES[c.type] ?? c.type}</Badge>
            {c.is_primary && <Badge tone="accent">Primary</Badge>}
            <Badge tone={status.tone}>{status.label}</Badge>
          </div>
          <p className="mt-2 text-sm text-muted">
            {!provider
              ? 'Kept in this service: bookings on it never leave the scheduler.'
              : c.status === 'disconnected'
                ? 'Disconnected: nothing is synced and its events do not count as busy time.'
                : c.last_synced_label
                  ? <>Last sync: {c.last_synced_label}</>
                  : 'Not synced yet'}
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {c.status !== 'disconnected' && !c.is_primary && (
            <Button size="sm" variant="secondary" disabled={update.isPending} onClick={() => change({ make_primary: true })}>
              Make primary
            </Button>
          )}
          {provider && c.status !== 'active' && <Reconnect calendar={c} name={name} oauthConfigured={oauthConfigured} />}
          {provider && c.status !== 'disconnected' && (
            <ConfirmButton
              label={`Disconnect ${name}`}
              title={`Disconnect ${name}?`}
              description="Its stored credentials and synced events are deleted at once: its events stop counting as busy time, and bookings are no longer written to it. You can connect it again later."
              confirmLabel="Disconnect"
              onConfirm={async () => {
                await disconnect.mutateAsync({ calendar_id: c.calendar_id });
                router.refresh();
              }}
            >
              Disconnect
            </ConfirmButton>
          )}
        </div>
      </div>
      {c.status !== 'disconnected' && (
        <label className="mt-3 flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            className="size-4"
            checked={checkConflicts}
            disabled={update.isPending}
            onChange={async (e) => {
              const next = e.target.checked;
              setCheckConflicts(next);
              if (!(await change({ check_conflicts: next }))) setCheckConflicts(!next);
            }}
          />
          Check for conflicts (events on this calendar count as busy time)
        </label>
      )}
      {c.status === 'reauth_required' && (
        <Alert tone="danger" className="mt-3">
          The provider refused the stored credentials. Requests for your time answer CALENDAR_REAUTH_REQUIRED until you reconnect.
          {c.last_sync_error ? <> Last error: {c.last_sync_error}</> : null}
        </Alert>
      )}
      {c.status === 'disconnected' && c.is_primary && (
        <Alert tone="warn" className="mt-3">
          This disconnected calendar is still your primary one: requests that book on the primary calendar answer CALENDAR_NOT_FOUND until you reconnect it or make another calendar primary.
        </Alert>
      )}
      {c.status === 'active' && c.last_sync_error && (
        <Alert tone="warn" className="mt-3">
          Last sync failed: {c.last_sync_error}
        </Alert>
      )}
      {error && (
        <p role="alert" className="mt-2 text-sm text-danger">
          {error}
        </p>
      )}
    </Card>
  );
}

function Reconnect({ calendar: c, name, oauthConfigured }: { calendar: CalendarRow; name: string; oauthConfigured: Record<'google' | 'microsoft', boolean> }) {
  if (c.type === 'caldav') return <ReconnectCaldav calendarId={c.calendar_id} name={name} />;
  if ((c.type === 'google' || c.type === 'microsoft') && oauthConfigured[c.type])
    return (
      <a href={`/dashboard/connections/connect/${c.type}`} className={buttonClasses('primary', 'sm')} aria-label={`Reconnect ${name}`}>
        Reconnect
      </a>
    );
  return null;
}
