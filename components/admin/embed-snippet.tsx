'use client';

import { useId, useState } from 'react';
import { Check, Copy } from 'lucide-react';
import { buttonClasses } from '@/components/ui/button-classes';
import { useCopy } from '@/components/ui/use-copy';

type Kind = 'inline' | 'popup';

/** The few lines a customer pastes into their own site (docs/public-scheduling.md "Embedding"). */
function embedSnippet(pageUrl: string, kind: Kind): string {
  const script = `<script src="${new URL(pageUrl).origin}/embed.js" async></script>`;
  return kind === 'inline'
    ? `<div data-scheduler-embed="${pageUrl}"></div>\n${script}`
    : `<button type="button" data-scheduler-popup="${pageUrl}">Book a meeting</button>\n${script}`;
}

/**
 * On a link's card: the embed snippet, inline or as a pop-up, with Copy. The page answers in a frame
 * only on the customer's verified domains (the Domains card), so the note says so.
 */
export function EmbedSnippet({ pageUrl, alias, verifiedDomains }: { pageUrl: string; alias: string; verifiedDomains: string[] }) {
  const [kind, setKind] = useState<Kind>('inline');
  const [copied, copyText] = useCopy();
  const name = useId();
  const code = embedSnippet(pageUrl, kind);
  const copy = () => copyText(code);
  return (
    <details className="rounded-md border border-line px-3 py-2 text-sm" data-testid={`embed-${alias}`}>
      <summary className="cursor-pointer font-medium">Embed on your site</summary>
      <div className="mt-2 flex flex-col gap-2">
        <div role="radiogroup" aria-label="How the page appears" className="flex gap-4">
          {(['inline', 'popup'] as const).map((k) => (
            <label key={k} className="flex items-center gap-1.5">
              <input type="radio" name={name} value={k} checked={kind === k} onChange={() => setKind(k)} className="accent-accent" />
              {k === 'inline' ? 'Inline' : 'Pop-up'}
            </label>
          ))}
        </div>
        <pre className="overflow-x-auto rounded bg-surface-2 p-2 text-xs" data-testid="embed-code">
          <code>{code}</code>
        </pre>
        <div className="flex flex-wrap items-center gap-2">
          <button type="button" className={buttonClasses('secondary', 'sm')} onClick={copy}>
            {copied === 'yes' ? <Check aria-hidden /> : <Copy aria-hidden />}
            {copied === 'yes' ? 'Copied' : 'Copy'}
            <span className="sr-only"> the embed code of /{alias}</span>
          </button>
          <span role="status" aria-live="polite" className="sr-only">
            {copied === 'yes' ? 'Embed code copied' : copied === 'failed' ? 'Could not copy; select the code instead' : ''}
          </span>
        </div>
        <p className="text-xs text-muted">
          {verifiedDomains.length
            ? `Works on ${verifiedDomains.map((d) => `https://${d}`).join(', ')}: the page may be framed only by your verified domains.`
            : 'Verify a domain first (Domains): the page may be framed only by your verified domains.'}{' '}
          The frame sizes itself to the page and tells your page about each booking (the <code>scheduler:event</code> event).
        </p>
      </div>
    </details>
  );
}
