'use client';

import { useSyncExternalStore } from 'react';

/**
 * The requester's time zone on the public pages: the one they chose before
 * (kept in this browser's localStorage), else the browser's own. Unknown on
 * the server (null), so times render only in the browser, never in the
 * server's zone.
 */
const KEY = 'scheduler.timeZone';
const EVENT = 'scheduler-time-zone';

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

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
  return browserZone();
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

/** Every zone the browser knows, the current one included. */
export function timeZones(current: string): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return all.includes(current) ? all : [current, ...all];
}

export function formatDay(iso: string, tz: string): string {
  return new Intl.DateTimeFormat(undefined, { timeZone: tz, weekday: 'long', day: 'numeric', month: 'long' }).format(new Date(iso));
}

export function formatTime(iso: string, tz: string): string {
  return new Intl.DateTimeFormat(undefined, { timeZone: tz, hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
}

/** "Wednesday 2 December, 14:30 – 15:00" in `tz`. */
export function formatRange(start: string, end: string, tz: string): string {
  return `${formatDay(start, tz)}, ${formatTime(start, tz)} – ${formatTime(end, tz)}`;
}

/** The zone's name as people read it, e.g. "India Standard Time" (falls back to the IANA name). */
export function zoneName(tz: string, at = new Date()): string {
  const part = new Intl.DateTimeFormat(undefined, { timeZone: tz, timeZoneName: 'long' }).formatToParts(at).find((p) => p.type === 'timeZoneName');
  return part?.value ?? tz;
}

/** A domain error's code from a tRPC client error (`error.data.domain.code`, see server/trpc/init.ts). */
export function domainCode(err: unknown): string | undefined {
  return (err as { data?: { domain?: { code?: string } | null } } | null)?.data?.domain?.code;
}
