'use client';

import { signOut } from 'next-auth/react';
import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';
import { ConfirmButton } from '@/components/ui/confirm-button';
import { Badge, Card, CardContent, CardDescription, CardHeader, CardTitle, LocalTime } from '@/components/ui';

type SessionRow = { session_id: string; user_agent: string | null; created_at: string; last_seen_at: string; current: boolean };

/** A browser's description in a few words: "Chrome on Linux", else its first words. */
function browserName(userAgent: string | null): string {
  if (!userAgent) return 'A browser';
  const browser = /Edg\//.test(userAgent) ? 'Edge' : /Firefox\//.test(userAgent) ? 'Firefox' : /Chrom(e|ium)\//.test(userAgent) ? 'Chrome' : /Safari\//.test(userAgent) ? 'Safari' : null;
  const system = /Android/.test(userAgent) ? 'Android' : /iPhone|iPad/.test(userAgent) ? 'iOS' : /Mac OS X/.test(userAgent) ? 'macOS' : /Windows/.test(userAgent) ? 'Windows' : /Linux/.test(userAgent) ? 'Linux' : null;
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? system ?? userAgent.slice(0, 40);
}

/**
 * The owner's signed-in browsers (docs/dashboard.md "Sessions"). "Sign out" in the header ends
 * this browser's session only; "Sign out everywhere" here ends every one, this one included.
 */
export function SessionsCard({ sessions }: { sessions: SessionRow[] }) {
  const trpc = useTRPC();
  const everywhere = useMutation(trpc.session.signOutEverywhere.mutationOptions());
  return (
    <Card className="mt-8">
      <CardHeader>
        <CardTitle>Signed-in browsers</CardTitle>
        <CardDescription>Sign out in the header ends this browser&rsquo;s session only. Lost a device? Sign out everywhere.</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <ul className="flex flex-col gap-2 text-sm" aria-label="Signed-in browsers">
          {sessions.map((s) => (
            <li key={s.session_id} className="flex flex-wrap items-center gap-2 rounded-md border border-line px-3 py-2" data-testid="session-row">
              <span className="font-medium">{browserName(s.user_agent)}</span>
              {s.current && <Badge tone="accent">this browser</Badge>}
              <span className="text-muted">
                signed in <LocalTime iso={s.created_at} />, last seen <LocalTime iso={s.last_seen_at} />
              </span>
            </li>
          ))}
        </ul>
        <div>
          <ConfirmButton
            label="Sign out everywhere"
            title="Sign out everywhere?"
            description="Every browser signed in as you, this one included, must sign in again."
            confirmLabel="Sign out everywhere"
            onConfirm={async () => {
              await everywhere.mutateAsync();
              await signOut({ callbackUrl: '/signin' });
            }}
          >
            Sign out everywhere
          </ConfirmButton>
        </div>
      </CardContent>
    </Card>
  );
}
