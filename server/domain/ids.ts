import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Every id and secret the service makes comes from here.
 *
 * Ids are UUIDv7 (time-ordered, so primary-key inserts stay local in the
 * B-tree). Secrets carry 256 random bits, a readable type prefix, and are
 * stored only as SHA-256 hashes plus a short display prefix.
 */
/** Random bytes for ids, drawn from the CSPRNG in batches (one call per 256 ids, not per id). */
const ID_POOL_IDS = 256;
let idPool = Buffer.alloc(0);
let idPoolAt = 0;

function idBytes(): Buffer {
  if (idPoolAt >= idPool.length) {
    idPool = randomBytes(16 * ID_POOL_IDS);
    idPoolAt = 0;
  }
  const b = Buffer.from(idPool.subarray(idPoolAt, idPoolAt + 16));
  idPoolAt += 16;
  return b;
}

export function newId(now: number = Date.now()): string {
  const b = idBytes();
  // 48-bit big-endian millisecond timestamp
  b[0] = Math.floor(now / 2 ** 40) & 0xff;
  b[1] = Math.floor(now / 2 ** 32) & 0xff;
  b[2] = (now >>> 24) & 0xff;
  b[3] = (now >>> 16) & 0xff;
  b[4] = (now >>> 8) & 0xff;
  b[5] = now & 0xff;
  b[6] = (b[6] & 0x0f) | 0x70; // version 7
  b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Prefixes of the secrets handed out. */
export const SECRET_PREFIX = {
  apiKey: 'ak_',
  requesterCredential: 'rc_',
  proposalToken: 'pt_',
  verificationToken: 'cv_',
  webhookSecret: 'whsec_',
  waitlistToken: 'wl_',
} as const;
export type SecretKind = keyof typeof SECRET_PREFIX;

export type NewSecret = { secret: string; hash: string; displayPrefix: string };

/** A new secret of the given kind: the plaintext (shown once), its hash and display prefix. */
export function newSecret(kind: SecretKind): NewSecret {
  const secret = SECRET_PREFIX[kind] + randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret), displayPrefix: secret.slice(0, SECRET_PREFIX[kind].length + 8) };
}

/**
 * A secret derived one-way from another one (SHA-256 of a label and the
 * source): whoever holds the source can compute it, nobody can go back.
 * The status token of a public proposal is derived from its contact
 * verification token, so the confirmation page can link the status page
 * while the database keeps only hashes of both (docs/public-scheduling.md
 * "Contact verification").
 */
export function derivedSecret(kind: SecretKind, label: string, source: string): NewSecret {
  const secret = SECRET_PREFIX[kind] + createHash('sha256').update(`${label}:${source}`, 'utf8').digest('base64url');
  return { secret, hash: hashSecret(secret), displayPrefix: secret.slice(0, SECRET_PREFIX[kind].length + 8) };
}

/** SHA-256 (hex) of a secret: what the database stores and looks up by. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Compare two secrets in constant time (the one helper: OAuth state, the metrics bearer token). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** A random token for DNS challenges and similar non-secret-but-unguessable values. */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}
