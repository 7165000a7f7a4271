import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { nextWeekday } from '../scheduling/fixtures';
import { permissionRefused, searchHoldConfirm } from './scenario';

/**
 * The SDK's own client over stdio, spawning `npx tsx scripts/mcp.ts` (what
 * `npm run mcp` runs) on an embedded database in a temporary PGLITE_DIR.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-stdio-'));
const baseEnv = { ...process.env, DATABASE_URL: '', DB_DRIVER: '', REDIS_URL: '', PGLITE_DIR: path.join(dir, 'pglite'), DATA_DIR: dir, LOG_LEVEL: 'silent' } as NodeJS.ProcessEnv;
let seed: { adminKey: string; readerKey: string; owner: string };

beforeAll(async () => {
  const out = path.join(dir, 'seed.json');
  await promisify(execFile)('npx', ['tsx', 'tests/integration/mcp/seedStdio.ts'], { env: { ...baseEnv, SEED_OUT: out }, cwd: process.cwd() });
  seed = JSON.parse(fs.readFileSync(out, 'utf8'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function withServer(key: string, run: (client: Client) => Promise<void>) {
  const transport = new StdioClientTransport({ command: 'npx', args: ['tsx', 'scripts/mcp.ts'], env: { ...baseEnv, SCHEDULER_API_KEY: key } as Record<string, string>, cwd: process.cwd(), stderr: 'inherit' });
  const client = new Client({ name: 'test-agent', version: '1.0.0' });
  await client.connect(transport);
  try {
    await run(client);
  } finally {
    await client.close(); // one process at a time on the embedded database
  }
}

describe('MCP over stdio (npm run mcp)', () => {
  it('lists tools; search -> hold -> confirm; ARBITRATION_REJECTED with alternatives', async () => {
    await withServer(seed.adminKey, (client) => searchHoldConfirm(client, seed.owner, nextWeekday('mon', 'Europe/Berlin').at));
  });

  it('a key without create_bookings gets the permission error as a tool error', async () => {
    await withServer(seed.readerKey, (client) => permissionRefused(client, seed.owner, nextWeekday('wed', 'Europe/Berlin').at));
  });
});
