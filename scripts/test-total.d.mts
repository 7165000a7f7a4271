import type { Skip } from './test/reports.d.mts';

/** Types of ./test-total.mjs (plain JavaScript; the end of CI's log). */
export type RunSummary = { passed: number; failed: number; skipped: number; skips?: Skip[] };
export declare function totalLines(summaries: (RunSummary | null)[]): { lines: string[]; failed: number };
