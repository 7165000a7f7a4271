/**
 * A booking page inside a frame on the customer's own site
 * (docs/public-scheduling.md "Embedding"). The page tells its host page, and
 * only it, how tall it is and what happened: `booking.proposed`,
 * `booking.booked`, `booking.cancelled`, with a reference and no personal
 * data. Client-only; does nothing when the page is not framed.
 *
 * The host's origin is learned from the browser, never from the page's
 * address: the `scheduler:hello` message /embed.js sends into the frame
 * (`event.origin`, from `window.parent` itself), else
 * `location.ancestorOrigins`. Either must be this origin or one of the
 * customer's verified domains (the names proxy.ts put in the page; the
 * browser already refused every other framer by the page's frame-ancestors).
 * Every message is posted with that origin as its target, so the browser
 * drops it if the parent has navigated elsewhere meanwhile.
 */
import { useEffect, useRef } from 'react';

export type EmbedEventName = 'booking.proposed' | 'booking.booked' | 'booking.cancelled';

let hostOrigin: string | null = null;
let domains: readonly string[] = [];

/** Is `origin` allowed to frame this page: this origin, or a verified domain (https; http too while this page is on http)? */
export function allowedHostOrigin(origin: string, self: string, verified: readonly string[]): boolean {
  if (origin === self) return true;
  let u: URL;
  try {
    u = new URL(origin);
  } catch {
    return false;
  }
  const schemeOk = u.protocol === 'https:' || (u.protocol === 'http:' && self.startsWith('http:'));
  return schemeOk && u.origin === origin && verified.includes(u.hostname);
}

function post(message: Record<string, unknown>): void {
  if (hostOrigin) window.parent.postMessage({ source: 'scheduler', ...message }, hostOrigin);
}

/** The page's height in CSS pixels, for the host to size the frame (the shell's minimum height is off while framed). */
function postSize(): void {
  post({ type: 'scheduler:resize', height: Math.ceil(document.body.getBoundingClientRect().height) });
}

/** Starts listening for the host page; returns the clean-up. `verified`: the customer's verified domains. */
export function startEmbedBridge(verified: readonly string[]): () => void {
  if (typeof window === 'undefined' || window.parent === window) return () => {};
  domains = verified;
  document.documentElement.dataset.embedded = '';
  const self = location.origin;
  const ancestor = (location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins?.[0] ?? null;
  if (ancestor && allowedHostOrigin(ancestor, self, domains)) hostOrigin = ancestor;
  const onMessage = (e: MessageEvent) => {
    if (e.source !== window.parent || (e.data as { type?: unknown } | null)?.type !== 'scheduler:hello') return;
    if (!allowedHostOrigin(e.origin, self, domains) || (ancestor && ancestor !== e.origin)) return;
    hostOrigin = e.origin;
    post({ type: 'scheduler:ready', path: location.pathname.split('/').slice(0, 3).join('/') });
    postSize();
  };
  window.addEventListener('message', onMessage);
  const observer = new ResizeObserver(postSize);
  observer.observe(document.body);
  postSize();
  return () => {
    window.removeEventListener('message', onMessage);
    observer.disconnect();
  };
}

/**
 * A reference to the request the host page can match across its events: one-way from the status
 * token (the token itself is a secret and never leaves the page), the same on every page of the
 * request. Null where the browser offers no SHA-256 (not a secure context).
 */
async function proposalRef(statusToken: string): Promise<string | null> {
  if (!globalThis.crypto?.subtle) return null;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`scheduler-embed:${statusToken}`));
  return `pr_${Array.from(new Uint8Array(digest).slice(0, 16), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** The status token at the end of a status_url or status page path. */
export const tokenOf = (statusUrl: string) => statusUrl.split(/[?#]/)[0].split('/').filter(Boolean).at(-1) ?? '';

/** Tells the host page (when framed by one) that something happened to a request. */
export async function emitEmbedEvent(event: EmbedEventName, statusToken: string, extra: { link?: string; meeting_type?: string } = {}): Promise<void> {
  if (!hostOrigin) return;
  post({ type: 'scheduler:event', event, proposal_ref: await proposalRef(statusToken), ...extra });
}

/** The status page: `booking.booked` and `booking.cancelled` when the request becomes so while the page is open. */
export function useEmbedStatusEvents(statusToken: string, shown: string): void {
  const previous = useRef(shown);
  useEffect(() => {
    const before = previous.current;
    previous.current = shown;
    if (shown === before) return;
    if (shown === 'booked') void emitEmbedEvent('booking.booked', statusToken);
    if (shown === 'cancelled') void emitEmbedEvent('booking.cancelled', statusToken);
  }, [shown, statusToken]);
}
