import type { ReactNode } from 'react';
import { Card } from '@/components/ui/card';

/**
 * The body of the not-found and error pages (app/not-found.tsx, app/error.tsx
 * and their public and dashboard variants): a card with a small label
 * ("404", "Error"), a heading, what happened in plain words, and what to do
 * next (`actions`: a link home, a retry button; public pages link to nothing
 * internal). Server-safe and client-safe: the error pages are client components.
 */
export function MessagePage({ label, title, children, actions }: { label: string; title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mx-auto flex w-full max-w-xl flex-col py-4 sm:py-10">
      <Card className="flex flex-col gap-3 p-6 sm:p-8">
        <p className="text-sm font-medium tracking-wide text-muted uppercase">{label}</p>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        <div className="flex flex-col gap-2 text-fg">{children}</div>
        {actions && <div className="mt-2 flex flex-wrap items-center gap-2">{actions}</div>}
      </Card>
    </div>
  );
}
