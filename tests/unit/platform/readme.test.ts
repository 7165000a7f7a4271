import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README is what a newcomer reads: every setting the service reads
 * (server/config.ts is the only reader of process.env, docs/architecture.md)
 * is named in it, and `npm run dev`'s banner names the API reference the README
 * names.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');

describe('README', () => {
  const readme = read('README.md');

  it('names every environment variable server/config.ts reads', () => {
    const config = read('server/config.ts');
    // reads only: `env.X = ...` is config.ts setting a variable for a library (Auth.js)
    const names = new Set(
      [...config.matchAll(/\benv(?:\.([A-Z][A-Z0-9_]+)\b|\[['"]([A-Z][A-Z0-9_]+)['"]\])(?!\s*=[^=])/g)].map((m) => m[1] ?? m[2]),
    );
    names.delete('NODE_ENV'); // the platform's own
    expect(names.size).toBeGreaterThan(20);
    const missing = [...names].filter((n) => !new RegExp(`\`${n}\``).test(readme));
    expect(missing, `README.md does not name: ${missing.join(', ')}`).toEqual([]);
  });

  it('and the dev banner name the same API reference address', () => {
    const banner = read('scripts/dev.mjs').split('\n').find((l) => l.includes('API reference'));
    expect(banner).toContain('${url}/docs/api');
    expect(readme).toMatch(/http:\/\/localhost:3000\/docs\/api/);
  });
});
