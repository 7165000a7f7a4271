import type { Executor } from '@/db/client';

/**
 * Group commit (docs/architecture.md "Deciding on time" and "The request path of a REST
 * call"): a write made outside any transaction goes out at once when its group has nothing in
 * flight; writes made while one is in flight wait for it and then go out together, up to `max`
 * in one statement. A burst of N costs a few round trips, not N. `write` returns one result
 * per item, in order; when it fails, every item of its batch fails with its error.
 */
export function groupCommit<I, R>(max: number, write: (db: Executor, items: I[]) => Promise<R[]>): (db: Executor, item: I) => Promise<R> {
  type Waiting = { item: I; resolve: (r: R) => void; reject: (err: unknown) => void };
  type Group = { inFlight: boolean; waiting: Waiting[]; flush: () => void };
  const groups = new WeakMap<Executor, Group>();
  // One group per database handle, its flush made once (not per write, on the hot path).
  const groupOf = (db: Executor): Group => {
    const group: Group = {
      inFlight: false,
      waiting: [],
      flush: () => {
        if (group.inFlight || !group.waiting.length) return;
        const batch = group.waiting.splice(0, max);
        group.inFlight = true;
        const settle = (results: R[] | null, err?: unknown) => {
          group.inFlight = false;
          batch.forEach((b, i) => (results ? b.resolve(results[i]) : b.reject(err)));
          group.flush();
        };
        Promise.resolve()
          .then(() => write(db, batch.map((b) => b.item)))
          .then(
            (results) => settle(results),
            (err: unknown) => settle(null, err ?? new Error('grouped write failed')),
          );
      },
    };
    groups.set(db, group);
    return group;
  };
  return (db, item) => {
    const group = groups.get(db) ?? groupOf(db);
    const done = new Promise<R>((resolve, reject) => group.waiting.push({ item, resolve, reject }));
    group.flush();
    return done;
  };
}
