/**
 * The requester pages' languages (docs/public-scheduling.md "Languages"): which
 * exist, which way each is written, and how one is chosen for a request. Pure
 * functions, used by proxy.ts (before the page), i18n/request.ts (the page) and
 * the mails; no Next.js import.
 */
export const LOCALES = ['en', 'de', 'fr', 'es', 'pt-BR', 'it', 'nl', 'ja', 'zh-CN', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** Right-to-left languages: `<html dir="rtl">`. */
const RTL = new Set<string>(['ar']);

/** The switcher's choice, remembered for a year (read on every requester page). */
export const LOCALE_COOKIE = 'requester_lang';
const LOCALE_COOKIE_MAX_AGE = 365 * 24 * 3600;

/**
 * The cookie remembering a requester's language, as a Set-Cookie value (proxy.ts, for `?lang=`)
 * and as `document.cookie` text (the switcher). Over https it is `SameSite=None; Secure;
 * Partitioned` like the booking pages' other cookie, so a choice made inside a frame on a
 * customer's site is remembered there, per top-level site (docs/public-scheduling.md
 * "Embedding"); over plain http (development) browsers refuse that: `SameSite=Lax`.
 */
export function localeCookie(locale: Locale, secure: boolean): string {
  return `${LOCALE_COOKIE}=${encodeURIComponent(locale)}; Path=/; Max-Age=${LOCALE_COOKIE_MAX_AGE}; ${secure ? 'SameSite=None; Secure; Partitioned' : 'SameSite=Lax'}`;
}

/**
 * Every cookie to write for a choice: over https first the clearing of an unpartitioned
 * `requester_lang` a browser may keep from before (a partitioned cookie is another cookie of the
 * same name: both would be sent), then localeCookie.
 */
export function localeCookies(locale: Locale, secure: boolean): string[] {
  return secure ? [`${LOCALE_COOKIE}=; Path=/; Max-Age=0; SameSite=Lax`, localeCookie(locale, true)] : [localeCookie(locale, false)];
}
/** Set by proxy.ts on the request of a requester page: the language the page renders in. */
export const LOCALE_HEADER = 'x-requester-locale';

/** Each language's name in itself (the switcher's options: a reader finds their own language whatever the page's). */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  'pt-BR': 'Português (Brasil)',
  it: 'Italiano',
  nl: 'Nederlands',
  ja: '日本語',
  'zh-CN': '简体中文',
  ar: 'العربية',
};

export function direction(locale: string): 'rtl' | 'ltr' {
  return RTL.has(locale.split('-')[0]) ? 'rtl' : 'ltr';
}

/** Traditional Chinese tags: not answered with simplified Chinese. */
const TRADITIONAL = /^zh-(?:hant|tw|hk|mo)(?:-|$)/i;

/** One language tag to a supported locale: exact (any case), else by its language ("pt-PT" → pt-BR, "zh-Hans-SG" → zh-CN). */
export function matchLocale(tag: string | null | undefined): Locale | undefined {
  if (!tag) return undefined;
  const t = tag.trim().replace(/_/g, '-');
  if (!/^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$/i.test(t)) return undefined;
  const exact = LOCALES.find((l) => l.toLowerCase() === t.toLowerCase());
  if (exact) return exact;
  if (TRADITIONAL.test(t)) return undefined;
  const language = t.split('-')[0].toLowerCase();
  return LOCALES.find((l) => l.split('-')[0] === language);
}

/** The best supported language of an Accept-Language header (q-values honoured, `*` ignored). */
export function fromAcceptLanguage(header: string | null | undefined): Locale | undefined {
  if (!header) return undefined;
  const ranked = header
    .split(',')
    .slice(0, 32)
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((r) => r.tag && r.tag !== '*' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const r of ranked) {
    const hit = matchLocale(r.tag);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * A request's language, strongest first: `?lang=`, then the switcher's cookie, then the
 * browser's Accept-Language, then the link owner's default, then English.
 */
export function resolveLocale(from: { query?: string | null; cookie?: string | null; acceptLanguage?: string | null; linkDefault?: string | null }): Locale {
  return matchLocale(from.query) ?? matchLocale(from.cookie) ?? fromAcceptLanguage(from.acceptLanguage) ?? matchLocale(from.linkDefault) ?? DEFAULT_LOCALE;
}

export function isLocale(v: unknown): v is Locale {
  return typeof v === 'string' && (LOCALES as readonly string[]).includes(v);
}

/**
 * Paths whose pages a requester reads (a link, a meeting type, a status page, the
 * not-found page of a mistyped link): everything the proxy sees but the landing
 * page, the dashboard, the sign-in pages and the docs, which stay English.
 */
export function isRequesterPath(pathname: string): boolean {
  if (pathname === '/' || pathname === '') return false;
  return !/^\/(?:dashboard|signin|docs|api|v1|mcp|metrics|_next|manifest\.webmanifest)(?:\/|$)/.test(pathname);
}

/**
 * The locale dates and times are written in on a page in `pageLocale`: the browser's own
 * regional variant of that language when it has one (en-GB's 24-hour clock on an English
 * page), else the page's language itself.
 */
export function formattingLocale(pageLocale: Locale, browserLanguages: readonly string[]): string {
  for (const tag of browserLanguages) {
    if (matchLocale(tag) !== pageLocale) continue;
    try {
      return Intl.getCanonicalLocales(tag)[0] ?? pageLocale;
    } catch {
      return pageLocale;
    }
  }
  return pageLocale;
}
