import createNextIntlPlugin from 'next-intl/plugin';

/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and postgres.js opens raw sockets: keep them out of the bundle.
  // drizzle-orm too: bundled, instrumentation.ts and the routes got two copies, and rows
  // from the other copy's session fell off drizzle's fast path (bench/availability.ts).
  // The OpenTelemetry SDK (tracing, docs/operations.md "Traces") stays outside too: one copy of
  // @opentelemetry/api for Next.js's own spans and ours, and the SDK's optional exporters unbundled.
  serverExternalPackages: [
    '@electric-sql/pglite',
    'postgres',
    'ioredis',
    'drizzle-orm',
    '@opentelemetry/api',
    '@opentelemetry/sdk-node',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/resources',
    '@opentelemetry/semantic-conventions',
  ],
  poweredByHeader: false,
  // `next start` loads every page and route module at start by default (all ~90 of them, with
  // their chunks); a server answering the JSON API then holds the dashboard's code, and its
  // source text, for nothing. Each module loads on its first request instead
  // (docs/benchmarks/history/2026-11-26-server-memory.md).
  experimental: { preloadEntriesOnStart: false },
  typescript: { tsconfigPath: './tsconfig.json' },
  // Every answer, JSON and pages alike (docs/reliability.md "Headers"); pages also get a
  // Content-Security-Policy and X-Frame-Options from proxy.ts.
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
        ],
      },
    ];
  },
  async rewrites() {
    return {
      beforeFiles: [
        // status_url content negotiation (docs/public-scheduling.md "Booking pages"): a browser
        // (Accept names text/html and not application/json) gets the status page; every other
        // client gets the JSON of app/public/booking-proposals/[token]/route.ts at the same URL.
        {
          source: '/public/booking-proposals/:token',
          has: [{ type: 'header', key: 'accept', value: '.*text/html.*' }],
          missing: [{ type: 'header', key: 'accept', value: '.*application/json.*' }],
          destination: '/status/:token',
        },
      ],
    };
  },
};
// next-intl without locale routing: the request's language comes from proxy.ts (docs/public-scheduling.md "Languages").
const withNextIntl = createNextIntlPlugin('./i18n/request.ts');
export default withNextIntl(nextConfig);
