import postgres from 'postgres';

type Subscriber = { channel: string; onNotify: (payload: string) => void; onState: (live: boolean) => void };

/** Reconnection back-off after the listening connection is lost: 100 ms, doubling, at most 5 s. */
const backoff = (attempt: number) => Math.min(100 * 2 ** attempt, 5000);

/**
 * NOTIFY subscriptions on one PostgreSQL connection of their own (DbHandle.listen,
 * docs/architecture.md "API keys"). Unlike postgres.js's own `listen`, a lost connection is
 * reported (onState(false)) the moment it closes, so a subscriber can stop trusting what the
 * notifications kept current; it is re-established with back-off and reported again
 * (onState(true)) once LISTEN answers.
 */
export function pgListener(url: string): { listen: (channel: string, onNotify: Subscriber['onNotify'], onState: Subscriber['onState']) => Promise<() => Promise<void>>; close: () => Promise<void> } {
  const subs = new Set<Subscriber>();
  let sql: postgres.Sql | undefined;
  let live = false;
  let closed = false;
  let attempt = 0;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const channels = () => [...new Set([...subs].map((s) => s.channel))];
  const setLive = (v: boolean) => {
    if (live === v && v) return;
    live = v;
    for (const s of subs) s.onState(v);
  };
  const open = (): postgres.Sql =>
    (sql ??= postgres(url, <postgres.Options<Record<string, postgres.PostgresType>>>{
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      // `onnotify` is a postgres.js option its types do not list (its own listen() uses it).
      onnotify: (channel: string, payload: string) => {
        for (const s of subs) if (s.channel === channel) s.onNotify(payload);
      },
      onclose: () => {
        if (closed) return;
        setLive(false);
        schedule();
      },
    }));
  const subscribeAll = async () => {
    const conn = open();
    for (const ch of channels()) await conn.unsafe(`listen "${ch.replace(/"/g, '""')}"`);
  };
  const schedule = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      subscribeAll().then(
        () => {
          attempt = 0;
          setLive(true);
        },
        () => {
          attempt++;
          schedule();
        },
      );
    }, backoff(attempt));
    retry.unref?.();
  };

  return {
    async listen(channel, onNotify, onState) {
      const sub: Subscriber = { channel, onNotify, onState };
      const known = channels().includes(channel);
      subs.add(sub);
      if (!known || !live) {
        try {
          await open().unsafe(`listen "${channel.replace(/"/g, '""')}"`);
          attempt = 0;
          live = true;
        } catch {
          onState(false);
          schedule();
          return async () => void subs.delete(sub);
        }
      }
      onState(true);
      return async () => void subs.delete(sub);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const conn = sql;
      sql = undefined;
      if (live) setLive(false);
      await conn?.end({ timeout: 1 });
    },
  };
}
