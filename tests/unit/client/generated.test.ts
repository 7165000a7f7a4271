import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { generatedClientFiles } from '@/scripts/clientFiles';

// CI fails when the checked-in client types drift from the operations: run `npm run client:generate`.
it('clients/typescript generated files are current (npm run client:generate)', async () => {
  for (const { file, text } of await generatedClientFiles()) {
    const onDisk = fs.readFileSync(path.resolve(import.meta.dirname, '../../..', file), 'utf8');
    expect(onDisk === text, `${file} is stale: run npm run client:generate`).toBe(true);
  }
}, 120_000);
