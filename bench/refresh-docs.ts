/**
 * Re-render what docs/benchmarks.md derives from the rest (bench/lib/benchDoc.ts): the contents
 * table at the top, each section's history line, and the list of files in
 * docs/benchmarks/history/README.md. Run it after adding a history file or editing a section
 * recorded by hand; the sections' own text and figures are left as they are.
 *
 *   npx tsx bench/refresh-docs.ts           write both files
 *   npx tsx bench/refresh-docs.ts --check   exit 1 when either is out of date, write nothing
 */
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_DOC, HISTORY_DIR, refreshDoc, refreshHistoryIndex } from './lib/benchDoc';

const check = process.argv.includes('--check');
const readme = path.join(HISTORY_DIR, 'README.md');
let stale = 0;
for (const [file, refresh] of [[BENCH_DOC, refreshDoc], [readme, refreshHistoryIndex]] as const) {
  const before = fs.readFileSync(file, 'utf8');
  const after = refresh(before);
  if (after === before) continue;
  stale++;
  if (!check) fs.writeFileSync(file, after);
  console.log(`${check ? 'out of date' : 'wrote'}: ${path.relative(process.cwd(), file)}`);
}
if (check && stale) process.exit(1);
