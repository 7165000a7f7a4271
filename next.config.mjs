/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and postgres.js opens raw sockets: keep them out of the bundle.
  // drizzle-orm too: bundled, instrumentation.ts and the routes got two copies, and rows
  // from the other copy's session fell off drizzle's fast path (bench/availability.ts).
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'ioredis', 'drizzle-orm'],
  poweredByHeader: false,
  typescript: { tsconfigPath: './tsconfig.json' },
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
export default nextConfig;
