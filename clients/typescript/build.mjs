// Builds dist/ (ES modules and .d.ts) with the TypeScript compiler: `npm run build`, run by
// `npm pack` (prepack). schema.d.ts is types only, so tsc does not emit it: it is copied.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const here = import.meta.dirname;
const tsc = createRequire(path.join(process.cwd(), 'noop.js')).resolve('typescript/bin/tsc');
fs.rmSync(path.join(here, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', path.join(here, 'tsconfig.json')], { stdio: 'inherit' });
fs.copyFileSync(path.join(here, 'src', 'schema.d.ts'), path.join(here, 'dist', 'schema.d.ts'));
