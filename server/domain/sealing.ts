import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { getConfig } from '@/server/config';

/**
 * Secrets at rest, sealed: calendar provider credentials (calendars/) and
 * webhook signing secrets (webhooks/secretStore.ts) share this module and its
 * keyring. AES-256-GCM with a random 96-bit nonce, the
 * key id stored beside every value so keys can rotate (docs/calendars.md).
 * CALENDAR_SECRET_KEYS lists `id:base64key` pairs; the first encrypts, all
 * decrypt. Unset: one random key kept in the data folder (single instance).
 */
export type SealedSecret = { v: 1; kid: string; iv: string; tag: string; ct: string };
type Keyring = { current: string; keys: Map<string, Buffer> };

let cached: { source: string; ring: Keyring } | undefined;

export function parseKeyring(spec: string): Keyring {
  const keys = new Map<string, Buffer>();
  let current = '';
  for (const part of spec.split(',').map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf(':');
    if (i <= 0) throw new Error('CALENDAR_SECRET_KEYS: each entry is id:base64key');
    const id = part.slice(0, i);
    const key = Buffer.from(part.slice(i + 1), 'base64');
    if (key.length !== 32) throw new Error(`CALENDAR_SECRET_KEYS: key ${id} must be 32 bytes`);
    keys.set(id, key);
    current ||= id;
  }
  if (!current) throw new Error('CALENDAR_SECRET_KEYS lists no key');
  return { current, keys };
}

function keyring(): Keyring {
  const config = getConfig();
  let source = config.calendarSecretKeys;
  if (!source) {
    const file = path.join(config.dataDir, 'calendar-secret-key');
    if (!fs.existsSync(file)) {
      fs.mkdirSync(config.dataDir, { recursive: true });
      fs.writeFileSync(file, `local:${crypto.randomBytes(32).toString('base64')}`, { mode: 0o600, flag: 'wx' });
    }
    source = fs.readFileSync(file, 'utf8').trim();
  }
  if (cached?.source !== source) cached = { source, ring: parseKeyring(source) };
  return cached.ring;
}

export function sealSecret(plain: Record<string, unknown>, ring: Keyring = keyring()): SealedSecret {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', ring.keys.get(ring.current)!, iv);
  cipher.setAAD(Buffer.from(ring.current));
  const ct = Buffer.concat([cipher.update(JSON.stringify(plain), 'utf8'), cipher.final()]);
  return { v: 1, kid: ring.current, iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ct: ct.toString('base64') };
}

export function openSecret<T = Record<string, unknown>>(sealed: SealedSecret, ring: Keyring = keyring()): T {
  const key = ring.keys.get(sealed.kid);
  if (!key) throw new Error(`calendar secret key ${sealed.kid} is not configured (CALENDAR_SECRET_KEYS)`);
  const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAAD(Buffer.from(sealed.kid));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  const plain = Buffer.concat([decipher.update(Buffer.from(sealed.ct, 'base64')), decipher.final()]);
  return JSON.parse(plain.toString('utf8')) as T;
}

/** True when the value was sealed with a key other than the current one (re-seal it on next write). */
export function needsRotation(sealed: SealedSecret, ring: Keyring = keyring()): boolean {
  return sealed.kid !== ring.current;
}
