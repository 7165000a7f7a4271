'use client';

import { useEffect, useState } from 'react';
import { requesterApi } from './api';
import type { Slot } from './time-grid';

/** How long an answer is shown again without asking (the server's answer moves as times are taken). */
const FRESH_MS = 30_000;
type Loaded<T> = { value: T; at: number };

/**
 * One query of the requester API (./api.ts) per set of parameters (null: nothing to ask yet),
 * answers cached for 30 s; `refetch` asks again (what is shown stays until the answer arrives).
 * `ask` is a module function: the parameters travel through the cache key.
 */
function useCachedQuery<P, T>(params: P | null, ask: (p: P) => Promise<T>) {
  const key = params === null ? null : JSON.stringify(params);
  const [cache] = useState(() => new Map<string, Loaded<T>>());
  const [, setLoads] = useState(0); // a new answer in the cache re-renders
  const [failedKey, setFailedKey] = useState<string | null>(null);
  const [round, setRound] = useState(0); // bumped by refetch()

  useEffect(() => {
    if (key === null) return;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < FRESH_MS) return;
    let live = true;
    ask(JSON.parse(key) as P).then(
      (value) => {
        cache.set(key, { value, at: Date.now() });
        if (live) setLoads((n) => n + 1);
      },
      () => {
        if (live) setFailedKey(key);
      },
    );
    return () => {
      live = false;
    };
  }, [ask, cache, key, round]);

  const hit = key === null ? undefined : cache.get(key);
  const failed = !hit && key !== null && failedKey === key;
  return {
    value: hit?.value,
    loading: !hit && !failed,
    failed,
    refetch: () => {
      if (key === null) return;
      const h = cache.get(key);
      if (h) h.at = 0;
      setRound((r) => r + 1);
    },
  };
}

type TimesQuery = { link: string; slug: string; duration: number; from: string; to?: string };
const askTimes = ({ link, slug, duration, from, to }: TimesQuery) =>
  requesterApi()
    .then(({ requester }) => requester.suggestedTimes.query({ link, slug, duration_minutes: duration, from, ...(to ? { to } : {}) }))
    .then((a): Slot[] => a.suggested_times);

/** The suggested times of a length from `from` to `to` (a day of the month view, a page of it); null: nothing asked yet. */
export function useSuggestedTimes(q: TimesQuery | null) {
  const r = useCachedQuery(q, askTimes);
  return { slots: r.value ?? [], loading: r.loading, failed: r.failed, refetch: r.refetch };
}

export type FreeDay = { date: string; count: number; from: string; to: string };
type FreeDays = { month: string; first_month: string; last_month: string; days: FreeDay[] };
type DaysQuery = { link: string; slug: string; duration: number; month?: string; tz: string };
const askDays = ({ link, slug, duration, month, tz }: DaysQuery): Promise<FreeDays> =>
  requesterApi().then(({ requester }) => requester.freeDays.query({ link, slug, duration_minutes: duration, ...(month ? { month } : {}), time_zone: tz }));

/** The month view's days with free times (docs/public-scheduling.md "Month view") of a length, a month and a zone; null: nothing asked yet. */
export function useFreeDays(q: DaysQuery | null) {
  return useCachedQuery(q, askDays);
}
