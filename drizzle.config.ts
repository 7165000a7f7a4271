import { defineConfig } from 'drizzle-kit';

// Used only to generate SQL migrations (`npm run db:generate`); migrations are
// applied in code at start-up for both drivers (db/migrate.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
});
