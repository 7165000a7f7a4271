'use client';

import { Check, Copy, ExternalLink } from 'lucide-react';
import { buttonClasses } from '@/components/ui/button-classes';
import { useCopy } from '@/components/ui/use-copy';

/**
 * A public address in full, with Copy (to the clipboard, confirmed in words
 * for screen readers) and Open (a new tab). docs/dashboard.md "Public scheduling".
 */
export function ShareUrl({ url, label }: { url: string; label: string }) {
  const [copied, copyText] = useCopy();
  const copy = () => copyText(url);
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-2">
      <code className="min-w-0 break-all rounded bg-surface-2 px-1.5 py-0.5 text-xs" data-testid="share-url">
        {url}
      </code>
      <span className="flex items-center gap-1">
        {/* Its name: the visible word, then what it copies (docs/dashboard.md "Public scheduling", WCAG 2.5.3). */}
        <button type="button" className={buttonClasses('secondary', 'sm')} onClick={copy}>
          {copied === 'yes' ? <Check aria-hidden /> : <Copy aria-hidden />}
          {copied === 'yes' ? 'Copied' : 'Copy'}
          <span className="sr-only"> the address of {label}</span>
        </button>
        <a href={url} target="_blank" rel="noreferrer" className={buttonClasses('ghost', 'sm')} aria-label={`Open ${label} in a new tab`}>
          <ExternalLink aria-hidden />
          Open
        </a>
      </span>
      <span role="status" aria-live="polite" className="sr-only">
        {copied === 'yes' ? 'Address copied' : copied === 'failed' ? 'Could not copy; select the address instead' : ''}
      </span>
    </div>
  );
}
