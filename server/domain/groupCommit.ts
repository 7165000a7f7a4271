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
  const groups = new WeakMap<Executor, { inFlight: boolean; waiting: Waiting[] }>();
  return (db, item) => {
    let g = groups.get(db);
    if (!g) groups.set(db, (g = { inFlight: false, waiting: [] }));
    const group = g;
    const done = new Promise<R>((resolve, reject) => group.waiting.push({ item, resolve, reject }));
    const settle = (batch: Waiting[], results: R[] | null, err?: unknown) => {
      group.inFlight = false;
      batch.forEach((b, i) => (results ? b.resolve(results[i]) : b.reject(err)));
      flush();
    };
    const flush = () => {
      if (group.inFlight || !group.waiting.length) return;
      const batch = group.waiting.splice(0, max);
      group.inFlight = true;
      Promise.resolve()
        .then(() => write(db, batch.map((b) => b.item)))
        .then(
          (results) => settle(batch, results),
          (err: unknown) => settle(batch, null, err ?? new Error('grouped write failed')),
        );
    };
    flush();
    return done;
  };
}
