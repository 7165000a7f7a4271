'use client';

import { useSyncExternalStore } from 'react';
import { browserTimeZone, isTimeZone } from '@/components/ui/time-format';

/**
 * The requester's time zone on the public pages: the one they chose before
 * (kept in this browser's localStorage), else the browser's own. Unknown on
 * the server (null), so times render only in the browser, never in the
 * server's zone.
 */
const KEY = 'scheduler.timeZone';
const EVENT = 'scheduler-time-zone';

/** The zone the pages show times in right now (sent with a submission, for the requester's mail). */
export function currentTimeZone(): string {
  return read();
}

function read(): string {
  try {
    const saved = window.localStorage.getItem(KEY);
    if (saved && isTimeZone(saved)) return saved;
  } catch {
    // storage blocked: the browser's zone
  }
  return browserTimeZone();
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('storage', onChange);
  window.addEventListener(EVENT, onChange);
  return () => {
    window.removeEventListener('storage', onChange);
    window.removeEventListener(EVENT, onChange);
  };
}

export function useTimeZone(): [string | null, (tz: string) => void] {
  const tz = useSyncExternalStore(subscribe, read, () => null);
  const set = (next: string) => {
    try {
      window.localStorage.setItem(KEY, next);
    } catch {
      // not remembered, still used below
    }
    window.dispatchEvent(new Event(EVENT));
  };
  return [tz, set];
}
