'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/components/trpc-provider';

/** Live service status (database, rate limiter) from the tRPC `system.health` procedure, refreshed every 15 s. */
export function ServiceStatus() {
  const trpc = useTRPC();
  const health = useQuery(trpc.system.health.queryOptions(undefined, { refetchInterval: 15_000 }));

  if (health.isPending) {
    return (
      <p className="status" data-state="pending" aria-live="polite">
        <span className="dot" /> Checking service status…
      </p>
    );
  }
  if (health.isError) {
    return (
      <p className="status" data-state="down" aria-live="polite">
        <span className="dot" /> Status unavailable: {health.error.message}
      </p>
    );
  }
  const h = health.data;
  return (
    <p className="status" data-state={h.status === 'ok' ? 'ok' : 'down'} aria-live="polite" data-testid="service-status">
      <span className="dot" />
      {h.status === 'ok' ? 'Operational' : 'Degraded'}
      <span className="detail">
        database {h.database.driver} {h.database.ok ? 'ok' : 'unreachable'} · rate limits{' '}
        {h.rate_limit.backend === 'memory' ? 'per instance' : `shared (${h.rate_limit.backend})`}{' '}
        {h.rate_limit.ok ? 'ok' : 'degraded'}
      </span>
    </p>
  );
}
