import crypto from 'node:crypto';
import type { Executor } from '@/db/client';
import { getConfig } from '@/server/config';
import { DomainError } from '../errors';
import { constantTimeEqual } from '../ids';
import { connectGoogle, connectMicrosoft } from './calendarService';
import { googleAuthorizationUrl } from './google';
import { microsoftAuthorizationUrl } from './microsoft';
import { pkcePair } from './oauth';
import { openSecret, sealSecret, type SealedSecret } from '../sealing';

/**
 * The dashboard's OAuth connect flow for Google and Microsoft 365
 * (docs/calendars.md "Connecting"): authorization code with PKCE (S256).
 *
 * Start: a random `state` and PKCE verifier are made and kept in a flow
 * value sealed with the calendar credential key (AES-256-GCM: neither
 * readable nor forgeable by the browser), bound to the signed-in owner and
 * the redirect URI and valid for 10 minutes; the caller stores it in an
 * HTTP-only cookie and sends the browser to the provider.
 * Finish: the callback's `state` must equal the sealed one and the owner must
 * be the one who started; the code is exchanged with the verifier at the
 * configured token endpoint, the account's calendars are listed, the tokens
 * are stored sealed and the calendar's first sync runs.
 */
export const OAUTH_PROVIDERS = ['google', 'microsoft'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];
const PROVIDER_NAMES: Record<OAuthProvider, string> = { google: 'Google Calendar', microsoft: 'Microsoft 365' };
const FLOW_TTL_MS = 10 * 60_000;

type Flow = { p: OAuthProvider; o: string; s: string; v: string; r: string; exp: number };

/** Which OAuth providers have a client configured (the page offers only those). */
export function oauthProvidersConfigured(): Record<OAuthProvider, boolean> {
  const c = getConfig();
  return { google: !!(c.googleClientId && c.googleClientSecret), microsoft: !!(c.microsoftClientId && c.microsoftClientSecret) };
}

/** The provider's authorization URL and the sealed flow value to keep in the browser's HTTP-only cookie until the callback. */
export function startOAuthConnect(ownerId: string, provider: OAuthProvider, redirectUri: string, now: Date): { authorizationUrl: string; flow: string } {
  if (!oauthProvidersConfigured()[provider]) throw new DomainError('invalid_request', `${PROVIDER_NAMES[provider]} is not configured on this installation`, { details: { oauth: 'not_configured' } });
  const { verifier, challenge } = pkcePair();
  const state = crypto.randomBytes(24).toString('base64url');
  const flow: Flow = { p: provider, o: ownerId, s: state, v: verifier, r: redirectUri, exp: now.getTime() + FLOW_TTL_MS };
  const input = { redirectUri, state, codeChallenge: challenge };
  const authorizationUrl = provider === 'google' ? googleAuthorizationUrl(input) : microsoftAuthorizationUrl(input);
  return { authorizationUrl, flow: Buffer.from(JSON.stringify(sealSecret(flow))).toString('base64url') };
}

function openFlow(value: string | undefined): Flow | null {
  if (!value) return null;
  try {
    return openSecret(JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as SealedSecret) as Flow;
  } catch {
    return null;
  }
}

export type OAuthCallback = { code?: string | null; state?: string | null; error?: string | null; errorDescription?: string | null; flow?: string };

/** The callback: check the flow, exchange the code, store the calendar. Every refusal is an `invalid_request` DomainError with a message for the owner. */
export async function finishOAuthConnect(
  db: Executor,
  owner: { ownerId: string; customerId: string; email: string },
  provider: OAuthProvider,
  cb: OAuthCallback,
  now: Date,
) {
  const name = PROVIDER_NAMES[provider];
  const flow = openFlow(cb.flow);
  if (!flow || flow.p !== provider) throw new DomainError('invalid_request', `The ${name} sign-in could not be matched to this browser (no pending connection, or its cookie was lost); start again`, { details: { oauth: 'no_flow' } });
  if (flow.o !== owner.ownerId) throw new DomainError('invalid_request', `The ${name} sign-in was started by another dashboard session; start again`, { details: { oauth: 'other_session' } });
  if (flow.exp < now.getTime()) throw new DomainError('invalid_request', `The ${name} sign-in took longer than 10 minutes; start again`, { details: { oauth: 'expired' } });
  if (!cb.state || !constantTimeEqual(cb.state, flow.s)) throw new DomainError('invalid_request', `The ${name} sign-in answered with a state that does not match the one sent (possible forgery); nothing was connected`, { details: { oauth: 'state_mismatch' } });
  if (cb.error) throw new DomainError('invalid_request', cb.error === 'access_denied' ? `Access to ${name} was not granted; nothing was connected` : `${name} refused the sign-in (${cb.error}${cb.errorDescription ? `: ${cb.errorDescription}` : ''})`, { details: { oauth: cb.error === 'access_denied' ? 'access_denied' : 'provider_error' } });
  if (!cb.code) throw new DomainError('invalid_request', `${name} sent no authorization code; start again`, { details: { oauth: 'no_code' } });
  const input = { code: cb.code, codeVerifier: flow.v, redirectUri: flow.r };
  return provider === 'google' ? connectGoogle(db, owner.customerId, owner.email, input, now) : connectMicrosoft(db, owner.customerId, owner.email, input, now);
}
