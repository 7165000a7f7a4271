import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Writes `.test-results/vitest-skips.json`: every skipped test with the note its
 * `ctx.skip(note)` gave (for example "needs TEST_DATABASE_URL ..."), so the
 * summary of `npm test` (scripts/test-all.mjs) can say what was not run and how
 * to run it. Tests that skip for a missing service say so in the note.
 */
export default class SkipReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const skips: { file: string; project: string; name: string; note: string | null }[] = [];
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped') continue;
        skips.push({
          file: path.relative(process.cwd(), mod.moduleId),
          project: mod.project.name,
          name: test.fullName,
          note: result.note ?? null,
        });
      }
    }
    fs.mkdirSync('.test-results', { recursive: true });
    fs.writeFileSync(path.join('.test-results', 'vitest-skips.json'), JSON.stringify({ startTime: Date.now(), skips }, null, 1));
  }
}
