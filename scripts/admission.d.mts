import type { IncomingMessage, ServerResponse } from 'node:http';

/** Types of ./admission.mjs (plain JavaScript, loaded by scripts/serve.mjs outside the bundle). */
export declare function createAdmission(limit: number): {
  admit(req: IncomingMessage, res: ServerResponse, run: () => void): void;
  stats(): { active: number; waiting: number };
};
