export type RateLimitPolicy = { name: string; limit: number; windowSeconds: number };

type RateLimitBackend = 'redis' | 'upstash' | 'memory';

export type RateLimitResult = {
  success: boolean;
  limit: number;
  remaining: number;
  /** Epoch ms when the current window ends (same meaning as @upstash/ratelimit's `reset`). */
  reset: number;
  backend: RateLimitBackend | 'memory-fallback';
};

export interface RateLimiter {
  readonly backend: RateLimitBackend;
  limit(policy: RateLimitPolicy, identifier: string): Promise<RateLimitResult>;
  /** For GET /api/health. Never throws. */
  ping(): Promise<{ ok: boolean; backend: string; error?: string }>;
  close(): Promise<void>;
}

export type Logger = (msg: string) => void;
