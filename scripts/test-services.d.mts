import type { Skip } from './test/reports.d.mts';

/** Types of ./test-services.mjs (plain JavaScript; CI's PostgreSQL/Redis run). */
export declare const SERVICES_SUMMARY_FILE: string;
export declare function servicesLocations(summary: { skips?: Skip[] } | null): string[] | null;
