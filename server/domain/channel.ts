/**
 * A worker's NOTIFY subscription kept up (docs/webhooks.md "Delivery", docs/reliability.md
 * "Reminders"): subscribe; while that fails (the database unreachable at start), say so once and
 * try again every `retryMs`, the worker polling meanwhile. The returned stop leaves the channel
 * without waiting; a database already closing (a stop at shutdown) has nothing left to leave.
 */
export type ChannelSubscription = (onNotify: (payload: string) => void, onState: (live: boolean) => void) => Promise<() => Promise<void>>;

export function stayListening(
  listen: ChannelSubscription,
  on: { notify: (payload: string) => void; state: (live: boolean) => void; cannotListenYet: (err: unknown) => void },
  retryMs: number,
): () => void {
  let stopped = false;
  let failed = false;
  let off: (() => Promise<void>) | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  const leave = (o: () => Promise<void>) => void o().catch(() => {});
  const subscribe = () =>
    listen(on.notify, on.state).then(
      (o) => {
        if (stopped) leave(o);
        else off = o;
      },
      (err) => {
        if (!failed) on.cannotListenYet(err);
        failed = true;
        if (stopped) return;
        retry = setTimeout(subscribe, retryMs);
        retry.unref?.();
      },
    );
  void subscribe();
  return () => {
    stopped = true;
    clearTimeout(retry);
    if (off) leave(off);
  };
}
