import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '@/server/http/openapi';
import { operations } from '@/server/http/operations';

/**
 * The published contract, checked as a client would use it (CI runs this in
 * `npm test`):
 * - Spectral's OpenAPI ruleset (`.spectral.yaml`) finds no error and no warning;
 * - openapi-typescript generates types from the document, and tsc checks a
 *   small openapi-fetch client that searches, holds and confirms
 *   (tests/fixtures/contract/client.fixture.ts), together with type-level
 *   guards of the error-code catalogue and of response shapes
 *   (domain.fixture.ts) and every operation's handler against its success
 *   schema (server/http/operations).
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const BIN = path.join(ROOT, 'node_modules/.bin');
let dir: string;
let docFile: string;

function run(cmd: string, args: string[], cwd = ROOT) {
  const r = spawnSync(path.join(BIN, cmd), args, { cwd, encoding: 'utf8', timeout: 240_000, env: { ...process.env, NO_COLOR: '1' } });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}${r.error ? String(r.error) : ''}` };
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contract-'));
  docFile = path.join(dir, 'openapi.json');
  fs.writeFileSync(docFile, JSON.stringify(buildOpenApiDocument(operations, 'http://localhost:3000'), null, 2));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the published OpenAPI document as a client uses it', () => {
  it('passes Spectral (spectral:oas) with 0 errors and 0 warnings', () => {
    const report = path.join(dir, 'spectral.json');
    const r = run('spectral', ['lint', '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json', '--output', report, '--fail-severity', 'hint', docFile]);
    expect(fs.existsSync(report), r.out).toBe(true);
    const results = JSON.parse(fs.readFileSync(report, 'utf8')) as { code: string; message: string; path: string[]; severity: number }[];
    const problems = results.filter((x) => x.severity <= 1).map((x) => `${x.severity === 0 ? 'error' : 'warning'} ${x.code}: ${x.message} at ${x.path.join('.')}`);
    expect(problems).toEqual([]);
  }, 240_000);

  it('generates types with openapi-typescript, and a typed openapi-fetch client (search, hold, confirm) type-checks', () => {
    const gen = run('openapi-typescript', [docFile, '-o', path.join(dir, 'schema.d.ts')]);
    expect(gen.status, gen.out).toBe(0);
    for (const f of ['client.fixture.ts', 'domain.fixture.ts']) fs.copyFileSync(path.join(ROOT, 'tests/fixtures/contract', f), path.join(dir, f));
    fs.writeFileSync(path.join(dir, 'operations.check.ts'), "import '@/server/http/operations';\n");
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['dom', 'ES2024'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          module: 'esnext',
          moduleResolution: 'bundler',
          esModuleInterop: true,
          resolveJsonModule: true,
          types: ['node'],
          paths: { '@/*': [`${ROOT}/*`] },
        },
        files: ['client.fixture.ts', 'domain.fixture.ts', 'operations.check.ts'],
      }),
    );
    const tsc = run('tsc', ['-p', path.join(dir, 'tsconfig.json')], dir);
    expect(tsc.out.trim()).toBe('');
    expect(tsc.status).toBe(0);
  }, 240_000);
});
