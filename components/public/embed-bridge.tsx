'use client';

import { useEffect } from 'react';
import { startEmbedBridge } from './embed-events';

/** Mounted on every requester page: talks to the host page when the page is framed (components/public/embed-events.ts). */
export function EmbedBridge({ domains }: { domains: string }) {
  useEffect(() => startEmbedBridge(domains ? domains.split(',') : []), [domains]);
  return null;
}
