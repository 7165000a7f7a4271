/** Types of ./reports.mjs (plain JavaScript, run by `npm test` before anything is built). */
export type Skip = { runner?: string; file: string; line?: number; project?: string; reason: string };
export type Counts = { passed: number; failed: number; skipped: number; notes: string[] };
export declare const ROOT: string;
export declare const RESULTS: string;
export declare function skipReason(note: unknown): string;
export declare function needsServices(skip: Skip): boolean;
export declare function runByServices(skip: Skip): boolean;
export declare function playwrightSkips(report: unknown): Skip[];
export declare function skipLines(skips: Skip[]): string[];
export declare function vitestCounts(report: unknown): Counts;
export declare function playwrightCounts(report: unknown): Counts;
export declare function failedNote(where: string, name: string | undefined, message: unknown): string;
