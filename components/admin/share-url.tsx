'use client';

import { useEffect, useState } from 'react';
import { Check, Copy, ExternalLink } from 'lucide-react';
import { buttonClasses } from '@/components/ui/button-classes';

/**
 * A public address in full, with Copy (to the clipboard, confirmed in words
 * for screen readers) and Open (a new tab). docs/dashboard.md "Public links".
 */
export function ShareUrl({ url, label }: { url: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(null), 2500);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-2">
      <code className="min-w-0 break-all rounded bg-surface-2 px-1.5 py-0.5 text-xs" data-testid="share-url">
        {url}
      </code>
      <span className="flex items-center gap-1">
        <button type="button" className={buttonClasses('secondary', 'sm')} onClick={copy} aria-label={`Copy the address of ${label}`}>
          {copied === 'yes' ? <Check aria-hidden /> : <Copy aria-hidden />}
          {copied === 'yes' ? 'Copied' : 'Copy'}
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
