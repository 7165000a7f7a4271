import { createHash } from 'node:crypto';
import { getDb } from '@/server/db';
import { isDomainError } from '@/server/domain/errors';
import { verificationIdForToken, verificationPage } from '@/server/domain/publicScheduling/requester';
import { log } from '@/server/log';
import { getConfig } from '@/server/config';
import { clientIpOf } from '@/server/request';
import { escapeHtml } from '@/server/html';
import { tokenPageLimits } from './tokenLimits';
import { rateLimitKeys } from '@/server/rateLimit/keys';
import { requesterTranslations, requestLocale } from '@/i18n/server';
import { direction, type Locale } from '@/i18n/locales';

/**
 * GET /public/contact-verifications/{token}/confirm: a small HTML page with
 * a Confirm button (GET changes nothing, so mail scanners that open links do
 * not confirm). The button POSTs to the same URL from an inline script (the
 * JSON operation confirmContactOp answers); without scripts the form posts
 * natively and the browser shows that JSON answer. Everything shown is
 * escaped; a strict CSP allows only this page's own script and style, and
 * no Referer leaves the page (the token is in its URL). In the requester's language
 * (docs/public-scheduling.md "Languages"): the words the script shows come with the page, in
 * data attributes, so the script (and its CSP hash) is the same in every language.
 */
/**
 * The look of the public booking pages (app/globals.css tokens, components/layout/public-shell.tsx):
 * the same colours light and dark, system fonts, a header with the service mark, one card.
 */
const STYLE =
  `:root{color-scheme:light dark;--bg:#f7f7f5;--surface:#fff;--fg:#1b1b1f;--muted:#5a5e66;--line:#dedfdb;--accent:#2f5bd3;--accent-fg:#fff;--ok:#13702f}` +
  `@media (prefers-color-scheme:dark){:root{--bg:#131316;--surface:#1b1b20;--fg:#ececef;--muted:#a3a5ad;--line:#32323a;--accent:#8fb0ff;--accent-fg:#0f1424;--ok:#6fd68f}}` +
  `*{box-sizing:border-box}body{font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;margin:0;background:var(--bg);color:var(--fg);min-height:100dvh;display:flex;flex-direction:column}` +
  `header{border-bottom:1px solid var(--line);background:var(--surface)}header div,main{max-width:42rem;margin:0 auto;width:100%;padding:0 1rem}header div{height:3.5rem;display:flex;align-items:center;font-weight:600;gap:.5rem}` +
  `header svg{color:var(--accent)}main{flex:1;padding-top:1.5rem;padding-bottom:1.5rem}.card{background:var(--surface);border:1px solid var(--line);border-radius:.5rem;padding:1.25rem}` +
  `h1{font-size:1.5rem;line-height:1.25;margin:0 0 .75rem;letter-spacing:-.01em}p{margin:.5rem 0}strong{overflow-wrap:anywhere}.muted{color:var(--muted);font-size:.875rem}` +
  `button{font:inherit;font-size:.875rem;font-weight:500;height:2.5rem;padding:0 1rem;border:0;border-radius:.375rem;background:var(--accent);color:var(--accent-fg);cursor:pointer;margin-top:.5rem}` +
  `button[disabled]{opacity:.5}:focus-visible{outline:2px solid var(--accent);outline-offset:2px}#result{min-height:1.5em;color:var(--ok)}a{color:var(--accent);font-weight:500}footer{border-top:1px solid var(--line);padding:1rem;text-align:center;font-size:.75rem;color:var(--muted)}`;
/** Shows the requested time in the requester's zone (the one they chose on the booking pages, else the browser's), then wires the Confirm button. */
const SCRIPT = `(function(){var z=null;try{z=localStorage.getItem('scheduler.timeZone')}catch(e){}var o={weekday:'long',day:'numeric',month:'long',hour:'numeric',minute:'2-digit',timeZoneName:'short'};document.querySelectorAll('time[datetime]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));try{t.textContent=new Intl.DateTimeFormat(document.documentElement.lang||undefined,Object.assign({timeZone:z||undefined},o)).format(d)}catch(e){try{t.textContent=new Intl.DateTimeFormat(document.documentElement.lang||undefined,o).format(d)}catch(x){}}})})();var cf=document.getElementById('confirm');if(cf)cf.addEventListener('submit',async function(e){e.preventDefault();var f=e.currentTarget,b=f.querySelector('button'),o=document.getElementById('result'),w=o.dataset;b.disabled=true;o.textContent=w.confirming;try{var r=await fetch(location.pathname,{method:'POST',headers:{accept:'application/json'},credentials:'omit'});var j=await r.json().catch(function(){return null});if(r.ok){f.hidden=true;o.focus();o.textContent=j&&j.status==='booked'?w.booked:w.review;var n=document.getElementById('next');if(n)n.hidden=false}else if(j&&j.error&&j.error.code==='not_pending'){f.hidden=true;o.focus();o.textContent=w.used}else if(r.status===429){b.disabled=false;o.textContent=w.limited}else{b.disabled=false;o.textContent=w.failed}}catch(x){b.disabled=false;o.textContent=w.network}});`;
const sha = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const CSP = `default-src 'none'; script-src ${sha(SCRIPT)}; style-src ${sha(STYLE)}; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

function page(locale: Locale, title: string, body: string, withScript: boolean): string {
  return (
    `<!doctype html><html lang="${locale}" dir="${direction(locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
    `<body><header><div><svg width="20" height="20" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><rect x="3" y="4" width="18" height="18" rx="2"/><path d="M16 2v4M8 2v4M3 10h18"/></svg>Agent Scheduler</div></header><main><div class="card">${body}</div></main><footer>Agent Scheduler</footer>${withScript ? `<script>${SCRIPT}</script>` : ''}</body></html>`
  );
}

function respond(status: number, html: string, extra: Record<string, string> = {}): Response {
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': CSP,
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      ...extra,
    },
  });
}

type Words = Awaited<ReturnType<typeof requesterTranslations<'verify'>>>;

/** A page with only a heading and a line (closed, not found, limited, failed). */
function notice(locale: Locale, t: Words, which: 'confirmed' | 'expired' | 'closed' | 'notFound' | 'tooMany' | 'error', extra = ''): string {
  const title = t('title', { which });
  return page(locale, title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(t('text', { which }))}</p>${extra}`, false);
}

export async function contactVerificationPage(req: Request, ctx: { params: Promise<Record<string, string | string[] | undefined>> }): Promise<Response> {
  const token = String((await ctx.params).token ?? '');
  let locale = requestLocale(req);
  let t = await requesterTranslations('verify', locale);
  let lang = { 'content-language': locale };
  let headers: Record<string, string> = {};
  try {
    // The global per-IP limit, then (for a token that exists) the same per-verification budget as the POST.
    const db = await getDb();
    const checked = await tokenPageLimits(req, token, async (tk) => {
      const id = await verificationIdForToken(db, tk);
      return id && rateLimitKeys.verification(id);
    });
    headers = { ...checked.headers, ...lang };
    if (!checked.limit.success) return respond(429, notice(locale, t, 'tooMany'), headers);
    if (token.length > 128) return respond(404, notice(locale, t, 'notFound'), headers);
    const v = await verificationPage(db, token, new Date());
    // The link's default language, known now, comes after the request's own choice (docs/public-scheduling.md "Languages").
    const chosen = requestLocale(req, v.linkDefaultLanguage);
    if (chosen !== locale) {
      locale = chosen;
      t = await requesterTranslations('verify', locale);
      lang = { 'content-language': locale };
      headers = { ...headers, ...lang };
    }
    const statusLink = v.statusPath ? `<a href="${escapeHtml(v.statusPath)}">${escapeHtml(t('statusLink'))}</a>` : '';
    if (v.state !== 'pending') return respond(200, notice(locale, t, v.state, statusLink ? `<p>${statusLink}</p>` : ''), headers);
    const strong = (c: string) => `<strong>${c}</strong>`;
    const asked = t.markup('asked', {
      hasTitle: v.title ? 'yes' : 'no',
      title: v.title ? escapeHtml(v.title) : '',
      hasOwner: v.ownerName ? 'yes' : 'no',
      owner: v.ownerName ? escapeHtml(v.ownerName) : '',
      hasWhen: v.start ? 'yes' : 'no',
      when: v.start ? escapeHtml(v.start.toUTCString()) : '',
      strong,
      time: (c) => `<time datetime="${escapeHtml(v.start?.toISOString() ?? '')}">${c}</time>`,
    });
    const confirmAddress = t.markup('confirmAddress', { email: escapeHtml(v.email), hasOwner: v.ownerName ? 'yes' : 'no', owner: v.ownerName ? escapeHtml(v.ownerName) : '', strong });
    const said = (['confirming', 'booked', 'review', 'used', 'limited', 'failed', 'network'] as const).map((k) => ` data-${k}="${escapeHtml(t('script', { k }))}"`).join('');
    const body =
      `<h1>${escapeHtml(t('title', { which: 'pending' }))}</h1><p>${asked}</p><p>${confirmAddress}</p>` +
      `<form method="post" id="confirm"><button type="submit">${escapeHtml(t('confirm'))}</button></form><p id="result" role="status" aria-live="polite" tabindex="-1"${said}></p>` +
      (v.statusPath ? `<p id="next" hidden>${t.markup('next', { link: (c) => `<a href="${escapeHtml(v.statusPath ?? '')}">${c}</a>` })}</p>` : `<p id="next" hidden>${escapeHtml(t('nextByMail'))}</p>`);
    return respond(200, page(locale, t('title', { which: 'pending' }), body, true), headers);
  } catch (err) {
    if (isDomainError(err) && err.code === 'not_found') return respond(404, notice(locale, t, 'notFound'), { ...headers, ...lang });
    log.error('contact verification page failed', { err, ip: clientIpOf(req, getConfig().trustProxy) });
    return respond(500, notice(locale, t, 'error'), lang);
  }
}
