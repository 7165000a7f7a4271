import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { inject } from 'vitest';
import { setLogDestination } from '@/server/log';
import { LOG_CAPTURE_DIR } from './secretRegistry';

/**
 * A setup file of every vitest project: the service's log lines go to this worker's file in
 * the run's log folder (tests/helpers/logScan.ts scans it at the end), not to the terminal;
 * errors are also echoed to stderr, as before.
 */
const dir = inject('logCaptureDir');
// For tests/helpers/secretRegistry.ts, which must not import vitest: test helpers also run
// outside vitest (scripts under tsx, e.g. tests/integration/mcp/seedStdio.ts).
(globalThis as { [LOG_CAPTURE_DIR]?: string })[LOG_CAPTURE_DIR] = dir;
if (dir) {
  const file = path.join(dir, `${process.pid}-${threadId}.ndjson`);
  setLogDestination({
    write(line: string) {
      fs.appendFileSync(file, line);
      if (line.startsWith('{"level":"error"') || line.startsWith('{"level":"fatal"')) process.stderr.write(line);
    },
  });
}
