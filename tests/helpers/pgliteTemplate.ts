import type { TestProject } from 'vitest/node';
import { writePgliteTemplate } from '@/db/drivers/pglite';

/**
 * Global setup of the embedded-database project (docs/testing.md "Embedded database template"):
 * migrates one in-memory PGlite and dumps it to the file the project's PGLITE_TEMPLATE names, once
 * per run, so that every test file's database starts migrated (about half a second) instead of
 * running every migration itself (two to four seconds).
 */
export default async function setup(project: TestProject): Promise<void> {
  const file = project.config.env.PGLITE_TEMPLATE;
  if (!file) throw new Error('tests/helpers/pgliteTemplate.ts: the project sets no PGLITE_TEMPLATE');
  await writePgliteTemplate(file, project.config.env.MIGRATIONS_DIR || `${project.config.root}/db/migrations`);
}
