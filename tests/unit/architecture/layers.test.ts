import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The layer rules of docs/architecture.md, enforced: dependency-cruiser with
 * .dependency-cruiser.cjs (no cycles; `app -> server/http | server/trpc ->
 * server/domain -> db`; db/ imports nothing of server/), and configuration
 * read from the environment in server/config.ts only.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('layers', () => {
  it('dependency-cruiser reports no violation and no cycle', () => {
    const bin = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');
    let out = '';
    try {
      out = execFileSync(process.execPath, [bin, 'app', 'components', 'server', 'db', 'scripts', 'instrumentation.ts', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: ROOT, encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      out = `${e.stdout ?? ''}${e.stderr ?? ''}`;
    }
    expect(out).not.toMatch(/error|warn/i);
    expect(out).toMatch(/no dependency violations found/);
  }, 60_000);

  it('process.env is read in server/config.ts only', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/\.(ts|tsx|mjs|js)$/.test(entry.name)) {
          const rel = path.relative(ROOT, full);
          if (rel === path.join('server', 'config.ts')) continue;
          const text = fs.readFileSync(full, 'utf8');
          text.split('\n').forEach((line, i) => {
            if (/process\.env\b/.test(line) && !/^\s*(\*|\/\/)/.test(line)) offenders.push(`${rel}:${i + 1}: ${line.trim()}`);
          });
        }
      }
    };
    for (const dir of ['server', 'db', 'app', 'components']) walk(path.join(ROOT, dir));
    expect(offenders).toEqual([]);
  });

  it("code and docs cite the repository's own docs/, never contract files outside it", () => {
    const outside = /\b(SPEC|DESIGN|API|PITFALLS)\.md\b/;
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) walk(full);
        } else if (/\.(ts|tsx|mjs|cjs|js|md)$/.test(entry.name)) {
          fs.readFileSync(full, 'utf8').split('\n').forEach((line, i) => {
            if (outside.test(line.replace(/docs\/api\.md/g, ''))) offenders.push(`${path.relative(ROOT, full)}:${i + 1}`);
          });
        }
      }
    };
    for (const dir of ['server', 'db', 'app', 'components', 'scripts', 'tests', 'e2e', 'bench', 'docs']) if (fs.existsSync(path.join(ROOT, dir))) walk(path.join(ROOT, dir));
    expect(offenders).toEqual([]);
  });
});
