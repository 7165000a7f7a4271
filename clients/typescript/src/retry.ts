/**
 * Retries for the typed client (clients/typescript/README.md): 429 waits
 * Retry-After (seconds, or an HTTP date), 5xx and network failures back off
 * exponentially with jitter. A mutating call gets one Idempotency-Key,
 * generated once and sent again on every retry, so a retried booking is made
 * at most once.
 */
export type RetryOptions = {
  /** Retries after the first attempt (default 3). */
  maxRetries?: number;
  /** First backoff in ms for 5xx and network errors (default 250), doubled per retry. */
  baseDelayMs?: number;
  /** Longest single wait in ms, Retry-After included (default 30 000). */
  maxDelayMs?: number;
  /** How to wait (tests pass a fake). */
  sleep?: (ms: number) => Promise<void>;
  /** A number in [0, 1) for jitter (default Math.random). */
  random?: () => number;
  /** Idempotency-Key generator (default crypto.randomUUID). */
  newKey?: () => string;
};

const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Seconds (or an HTTP date) in Retry-After as milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status !== 501);
}

/** Wraps a fetch with the retry policy above (openapi-fetch calls it with one Request per logical call). */
export function retryingFetch(base: (req: Request) => Promise<Response>, opts: RetryOptions = {}): (req: Request) => Promise<Response> {
  const maxRetries = opts.maxRetries ?? 3;
  const baseDelay = opts.baseDelayMs ?? 250;
  const maxDelay = opts.maxDelayMs ?? 30_000;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = opts.random ?? Math.random;
  const newKey = opts.newKey ?? (() => crypto.randomUUID());

  return async (input: Request) => {
    let req = input;
    if (MUTATING.has(req.method) && !req.headers.has('idempotency-key')) {
      const headers = new Headers(req.headers);
      headers.set('idempotency-key', newKey());
      req = new Request(req, { headers });
    }
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(maxDelay, baseDelay * 2 ** attempt * (0.5 + random() / 2)); // 50-100 % of the doubled base
      let res: Response;
      try {
        res = await base(req.clone());
      } catch (err) {
        if (attempt >= maxRetries || req.signal.aborted) throw err;
        await sleep(backoff);
        continue;
      }
      if (!retryable(res.status) || attempt >= maxRetries) return res;
      const wait = res.status === 429 ? (retryAfterMs(res.headers.get('retry-after')) ?? backoff) : backoff;
      await res.body?.cancel();
      await sleep(Math.min(maxDelay, wait));
    }
  };
}
