import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { needsRotation, openSecret, parseKeyring, sealSecret } from '@/server/domain/sealing';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');

describe('calendar secrets at rest', () => {
  const ring = parseKeyring(`k2:${key(2)},k1:${key(1)}`);
  const secret = `pw-${crypto.randomBytes(8).toString('hex')}`;

  it('stores neither the secret nor its base64, and opens again', () => {
    const sealed = sealSecret({ password: secret }, ring);
    const stored = JSON.stringify(sealed);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(Buffer.from(secret).toString('base64'));
    expect(stored).not.toContain(Buffer.from(JSON.stringify({ password: secret })).toString('base64'));
    expect(sealed.kid).toBe('k2');
    expect(openSecret(sealed, ring)).toEqual({ password: secret });
  });

  it('decrypts values sealed with an older key and says they need re-sealing; unknown keys fail', () => {
    const old = sealSecret({ password: secret }, parseKeyring(`k1:${key(1)}`));
    expect(openSecret(old, ring)).toEqual({ password: secret });
    expect(needsRotation(old, ring)).toBe(true);
    expect(() => openSecret(old, parseKeyring(`k3:${key(3)}`))).toThrow(/k1 is not configured/);
  });

  it('rejects a tampered value (GCM authentication)', () => {
    const sealed = sealSecret({ password: secret }, ring);
    const ct = Buffer.from(sealed.ct, 'base64');
    ct[0] ^= 1;
    expect(() => openSecret({ ...sealed, ct: ct.toString('base64') }, ring)).toThrow();
    expect(() => openSecret({ ...sealed, kid: 'k1' }, ring)).toThrow();
  });

  it('refuses keys that are not 32 bytes', () => {
    expect(() => parseKeyring(`k:${Buffer.alloc(16).toString('base64')}`)).toThrow(/32 bytes/);
  });
});
