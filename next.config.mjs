/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and postgres.js opens raw sockets: keep them out of the bundle.
  // drizzle-orm too: bundled, instrumentation.ts and the routes got two copies, and rows
  // from the other copy's session fell off drizzle's fast path (bench/availability.ts).
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'ioredis', 'drizzle-orm'],
  poweredByHeader: false,
  typescript: { tsconfigPath: './tsconfig.json' },
};
export default nextConfig;
