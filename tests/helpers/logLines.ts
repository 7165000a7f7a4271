import { logDestination, setLogDestination } from '@/server/log';

/**
 * The service's log lines written from now until `restore()`, parsed; they still reach the
 * run's capture (tests/helpers/logCapture.ts) and so its secret scan. `keep` false: a line is
 * collected but not passed on (a test that expects thousands of error lines).
 */
export function collectLogLines(keep: (line: Record<string, unknown>) => boolean = () => true): { lines: Record<string, unknown>[]; restore(): void } {
  const previous = logDestination();
  const lines: Record<string, unknown>[] = [];
  setLogDestination({
    write(text: string) {
      const line = JSON.parse(text) as Record<string, unknown>;
      lines.push(line);
      if (keep(line)) {
        if (previous) previous.write(text);
        else (line.level === 'warn' || line.level === 'error' || line.level === 'fatal' ? process.stderr : process.stdout).write(text);
      }
    },
  });
  return { lines, restore: () => setLogDestination(previous) };
}
