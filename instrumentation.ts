/**
 * Next.js start-up hook (runs once per server process, before the first
 * request). On the Node.js runtime it opens the database, so migrations run
 * and a bad DATABASE_URL or a locked embedded database shows at start rather
 * than on the first request, and connects the rate limiter (waiting, bounded,
 * for Redis when configured), which says whether limits are shared or per
 * instance. It also registers the shutdown hook that scripts/serve.mjs calls
 * on SIGTERM/SIGINT. Before anything else, it starts OpenTelemetry tracing when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md "Traces"), so the first statements
 * are traced and every route module loads with tracing already on; without it the SDK is not loaded.
 */
export async function register(): Promise<void> {
  // Next sets these: the edge runtime has no database, and `next build` only collects page data.
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  if (process.env.NEXT_PHASE === 'phase-production-build') return;

  // The SDK (hundreds of modules) loads only when tracing is configured (docs/benchmarks/history/2026-11-26-server-memory.md).
  const { getConfig } = await import('./server/config');
  if (getConfig().otelEndpoint) {
    const { startConfiguredTracing } = await import('./server/observability/otel');
    startConfiguredTracing();
  }
  const { startServices } = await import('./server/startup');
  await startServices();
}
