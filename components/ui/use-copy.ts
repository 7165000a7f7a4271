'use client';

import { useEffect, useState } from 'react';

/** Copy to the clipboard, and what happened ('yes', 'failed' or null after 2.5 s) for the button and its words for screen readers. */
export function useCopy(): [copied: 'yes' | 'failed' | null, copy: (text: string) => Promise<void>] {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => {
    if (!copied) return;
    const t = setTimeout(() => setCopied(null), 2500);
    return () => clearTimeout(t);
  }, [copied]);
  const copy = async (text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return [copied, copy];
}
