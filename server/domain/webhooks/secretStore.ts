import { openSecret, sealSecret, type SealedSecret } from '../sealing';

/**
 * A webhook's signing secret at rest. It signs, so it cannot be stored as a
 * hash like API keys; it is sealed with the service's at-rest keys
 * (AES-256-GCM, key id stored with the value, the same keyring as calendar
 * credentials: CALENDAR_SECRET_KEYS, docs/calendars.md and docs/webhooks.md).
 */
export function sealWebhookSecret(secret: string): string {
  return JSON.stringify(sealSecret({ secret }));
}

/** The plaintext secret of a stored value (a value written before sealing existed is the secret itself). */
export function openWebhookSecret(stored: string): string {
  if (!stored.startsWith('{')) return stored;
  return openSecret<{ secret: string }>(JSON.parse(stored) as SealedSecret).secret;
}
