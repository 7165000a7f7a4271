import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { getConfig } from '@/server/config';

let cached: string | undefined;

/**
 * The key that signs dashboard sessions: NEXTAUTH_SECRET (or AUTH_SECRET);
 * without one, a random key kept in the data folder (`.data/auth-secret`),
 * which suits a single instance. Several instances must share NEXTAUTH_SECRET.
 */
export function authSecret(): string {
  if (cached) return cached;
  const config = getConfig();
  if (config.authSecret) return (cached = config.authSecret);
  const file = path.join(config.dataDir, 'auth-secret');
  try {
    cached = fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(config.dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another process made it first
    }
    cached = fs.readFileSync(file, 'utf8').trim();
  }
  return cached;
}
