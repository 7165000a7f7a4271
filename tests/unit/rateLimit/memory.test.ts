import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter, RATE_LIMITS, type RateLimitPolicy } from '@/server/rateLimit';

const MINUTE = 60_000;
// An arbitrary, window-aligned epoch (ms) so tests do not depend on the wall clock.
const T0 = 1_900_000_020 * 1000; // divisible by 60 000

function clock(start: number) {
  let t = start;
  return { now: () => t, set: (v: number) => (t = v), advance: (ms: number) => (t += ms) };
}

describe('MemoryRateLimiter', () => {
  it('admits 120 per minute, denies the 121st with remaining 0 and reset at the window end', async () => {
    const c = clock(T0 + 10_000);
    const rl = new MemoryRateLimiter({ now: c.now });
    for (let i = 1; i <= 120; i++) {
      const r = await rl.limit(RATE_LIMITS.holds, 'key-a');
      expect(r).toEqual({ success: true, limit: 120, remaining: 120 - i, reset: T0 + MINUTE, backend: 'memory' });
      c.advance(10);
    }
    const denied = await rl.limit(RATE_LIMITS.holds, 'key-a');
    expect(denied).toEqual({ success: false, limit: 120, remaining: 0, reset: T0 + MINUTE, backend: 'memory' });
    // Denials are not counted and do not spill into other identifiers or policies.
    expect((await rl.limit(RATE_LIMITS.holds, 'key-a')).success).toBe(false);
    expect((await rl.limit(RATE_LIMITS.holds, 'key-b')).remaining).toBe(119);
    expect((await rl.limit(RATE_LIMITS.bookings, 'key-a')).remaining).toBe(119);
  });

  it('rolls over with the previous window weighted like @upstash/ratelimit slidingWindow', async () => {
    const c = clock(T0 + 50_000);
    const rl = new MemoryRateLimiter({ now: c.now });
    const p: RateLimitPolicy = { name: 'p', limit: 120, windowSeconds: 60 };
    for (let i = 0; i < 120; i++) expect((await rl.limit(p, 'k')).success).toBe(true);
    expect((await rl.limit(p, 'k')).success).toBe(false);

    // First instant of the next window: previous window still weighs 100%.
    c.set(T0 + MINUTE);
    expect(await rl.limit(p, 'k')).toMatchObject({ success: false, remaining: 0, reset: T0 + 2 * MINUTE });

    // 0.7 s in: previous counts floor((1 - 0.7/60) * 120) = floor(118.6) = 118 -> two slots.
    c.set(T0 + MINUTE + 700);
    expect(await rl.limit(p, 'k')).toMatchObject({ success: true, remaining: 1 });
    expect(await rl.limit(p, 'k')).toMatchObject({ success: true, remaining: 0 });
    expect((await rl.limit(p, 'k')).success).toBe(false);

    // Halfway: previous counts floor(0.5 * 120) = 60, current has 2 -> 58 more.
    c.set(T0 + MINUTE + 30_000);
    let admitted = 0;
    for (let i = 0; i < 100; i++) if ((await rl.limit(p, 'k')).success) admitted++;
    expect(admitted).toBe(58);

    // Two windows later nothing from the old windows counts.
    c.set(T0 + 3 * MINUTE + 1);
    expect(await rl.limit(p, 'k')).toMatchObject({ success: true, remaining: 119, reset: T0 + 4 * MINUTE });
  });

  it('remaining accounts for the weighted previous window', async () => {
    const c = clock(T0);
    const rl = new MemoryRateLimiter({ now: c.now });
    const p: RateLimitPolicy = { name: 'p', limit: 10, windowSeconds: 60 };
    for (let i = 0; i < 4; i++) await rl.limit(p, 'k');
    c.set(T0 + MINUTE + 15_000); // previous weighs 0.75 -> floor(3) = 3
    expect(await rl.limit(p, 'k')).toMatchObject({ success: true, remaining: 10 - (1 + 3) });
  });

  it('uses each policy window (publicProposalSubmit: 20 per 10 minutes)', async () => {
    const c = clock(T0 + 1000);
    const rl = new MemoryRateLimiter({ now: c.now });
    const p = RATE_LIMITS.publicProposalSubmit;
    const windowStart = Math.floor(c.now() / 600_000) * 600_000;
    for (let i = 0; i < 20; i++) expect((await rl.limit(p, 'ip|link')).success).toBe(true);
    expect(await rl.limit(p, 'ip|link')).toMatchObject({ success: false, reset: windowStart + 600_000 });
  });

  it('forgets idle identifiers and caps the number tracked', async () => {
    const c = clock(T0);
    const rl = new MemoryRateLimiter({ now: c.now, maxEntries: 1000 });
    for (let i = 0; i < 500; i++) await rl.limit(RATE_LIMITS.global, `ip-${i}`);
    expect(rl.size).toBe(500);
    c.advance(3 * MINUTE);
    await rl.limit(RATE_LIMITS.global, 'fresh');
    expect(rl.size).toBe(1);
    for (let i = 0; i < 5000; i++) await rl.limit(RATE_LIMITS.global, `flood-${i}`);
    expect(rl.size).toBeLessThanOrEqual(1001);
  });

  it('rejects malformed policies', async () => {
    const rl = new MemoryRateLimiter();
    await expect(rl.limit({ name: 'x', limit: 0, windowSeconds: 60 }, 'k')).rejects.toThrow(/limit/);
    await expect(rl.limit({ name: 'x', limit: 5, windowSeconds: 0 }, 'k')).rejects.toThrow(/windowSeconds/);
  });

  it('ping and close', async () => {
    const rl = new MemoryRateLimiter();
    expect(await rl.ping()).toEqual({ ok: true, backend: 'memory' });
    await rl.limit(RATE_LIMITS.global, 'x');
    await rl.close();
    expect(rl.size).toBe(0);
  });
});
