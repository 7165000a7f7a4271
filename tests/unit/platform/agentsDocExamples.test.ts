import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

/**
 * docs/agents.md shows its host and client snippets as whole files of examples/, which CI runs
 * against `npm run dev` (tests/integration/webhooks/exampleAgent.test.ts): each block after an
 * `<!-- example: examples/<file> ... -->` marker must be that file, byte for byte.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

it('docs/agents.md includes examples/openai-host.ts, claude.ts and typescript-client.ts as they are', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/agents.md'), 'utf8');
  const included = [...doc.matchAll(/<!-- example: (examples\/[\w.-]+)[^>]*-->\n```ts\n([\s\S]*?)```\n/g)].map((m) => ({ file: m[1], text: m[2] }));
  expect(included.map((i) => i.file).sort()).toEqual(['examples/claude.ts', 'examples/openai-host.ts', 'examples/typescript-client.ts']);
  for (const { file, text } of included) expect(text, `${file} differs from its block in docs/agents.md`).toBe(fs.readFileSync(path.join(ROOT, file), 'utf8'));
  // the sections the issue asks for, each with its example
  for (const [section, file] of [['Use it from an OpenAI-compatible host', 'openai-host.ts'], ['Use it from Claude', 'claude.ts'], ['Use it from the TypeScript client', 'typescript-client.ts']]) {
    const at = doc.indexOf(`## ${section}\n`);
    expect(at, section).toBeGreaterThan(-1);
    expect(doc.slice(at, doc.indexOf('\n## ', at + 3)), section).toContain(`<!-- example: examples/${file}`);
  }
});
