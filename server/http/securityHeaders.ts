/**
 * The security headers of HTML answers (docs/reliability.md "Headers").
 *
 * Every page the app renders (landing, sign-in, dashboard, booking pages,
 * status page, not-found and error pages) gets a Content-Security-Policy with
 * a fresh nonce per request from proxy.ts: Next.js reads the nonce from the
 * request's policy and puts it on its own scripts, so a script the server did
 * not render with it (an injected `<script>`, an inline event handler) does
 * not run. Pages are rendered per request (app/layout.tsx), as a nonce needs.
 * HTML that route handlers write themselves (the API reference, the
 * contact-verification page) sets a policy of its own without a nonce.
 *
 * `X-Content-Type-Options: nosniff` and `Referrer-Policy` go on every answer,
 * JSON included, from next.config.mjs (one static rule for all paths).
 *
 * No page may be framed (`frame-ancestors 'none'`, `X-Frame-Options: DENY`),
 * except the booking pages, which this origin and the link's customer's
 * verified domains may frame (docs/public-scheduling.md "Embedding";
 * server/http/frameAncestors.ts decides which pages and which sources).
 */

/** Directives every HTML answer shares: no plugins, no <base> elsewhere, forms post home. */
const SHARED = ["object-src 'none'", "base-uri 'self'", "form-action 'self'"];
/** ...and never framed. */
const COMMON = [...SHARED, "frame-ancestors 'none'"];

/** 128 random bits, base64: unguessable, fresh per request. */
export function newNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64');
}

/**
 * The policy of a page rendered by Next.js. Scripts: only those carrying the
 * nonce, and what they load ('strict-dynamic'; 'self' is the fallback for
 * browsers without it); development adds 'unsafe-eval' for React's dev
 * tooling (`npm run dev` only). Styles may be inline: server-rendered style
 * attributes and the framework's style tags carry no nonce, and a style
 * cannot run code.
 */
export function pageContentSecurityPolicy(nonce: string, development: boolean, frameAncestors: readonly string[] | null = null): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    ...(frameAncestors ? [...SHARED, `frame-ancestors ${["'self'", ...frameAncestors].join(' ')}`] : COMMON),
  ].join('; ');
}

/**
 * The policy of a static HTML document whose scripts are all files of this
 * origin (no inline script at all), such as the API reference's Swagger UI.
 */
export const STATIC_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  ...COMMON,
].join('; ');

/** Headers proxy.ts adds to every page answer besides its policy (browsers that predate frame-ancestors). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'X-Frame-Options': 'DENY' });

/**
 * ...and to a booking page instead, whose policy lets the customer's domains frame it. A browser
 * that knows frame-ancestors ignores X-Frame-Options (CSP3); one that predates it gets this
 * origin only, never a frame anywhere else.
 */
export const EMBEDDABLE_PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({ 'X-Frame-Options': 'SAMEORIGIN' });
