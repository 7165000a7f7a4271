/** Regenerates clients/typescript/src/schema.d.ts (the client package's types): `npm run client:generate`. */
import fs from 'node:fs';
import path from 'node:path';
import { generatedClientFiles } from './clientFiles';

async function main() {
  for (const { file, text } of await generatedClientFiles()) {
    fs.writeFileSync(path.join(process.cwd(), file), text);
    console.error(`wrote ${file}`);
  }
}
void main();
