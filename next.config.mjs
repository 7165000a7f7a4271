/** @type {import('next').NextConfig} */
const nextConfig = {
  // PGlite ships WASM and postgres.js opens raw sockets: keep them out of the bundle.
  serverExternalPackages: ['@electric-sql/pglite', 'postgres', 'ioredis'],
  poweredByHeader: false,
  typescript: { tsconfigPath: './tsconfig.json' },
};
export default nextConfig;
