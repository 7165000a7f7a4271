import { createHash } from 'node:crypto';
import { getDb } from '@/server/db';
import { isDomainError } from '@/server/domain/errors';
import { verificationIdForToken, verificationPage, type VerificationState } from '@/server/domain/publicScheduling/requester';
import { log } from '@/server/log';
import { getConfig } from '@/server/config';
import { clientIpOf } from '@/server/request';
import { tokenPageLimits } from './tokenLimits';

/**
 * GET /public/contact-verifications/{token}/confirm: a small HTML page with
 * a Confirm button (GET changes nothing, so mail scanners that open links do
 * not confirm). The button POSTs to the same URL from an inline script (the
 * JSON operation confirmContactOp answers); without scripts the form posts
 * natively and the browser shows that JSON answer. Everything shown is
 * escaped; a strict CSP allows only this page's own script and style, and
 * no Referer leaves the page (the token is in its URL).
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
const SCRIPT = `(function(){var z=null;try{z=localStorage.getItem('scheduler.timeZone')}catch(e){}var o={weekday:'long',day:'numeric',month:'long',hour:'numeric',minute:'2-digit',timeZoneName:'short'};document.querySelectorAll('time[datetime]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));try{t.textContent=new Intl.DateTimeFormat(undefined,Object.assign({timeZone:z||undefined},o)).format(d)}catch(e){try{t.textContent=new Intl.DateTimeFormat(undefined,o).format(d)}catch(x){}}})})();var cf=document.getElementById('confirm');if(cf)cf.addEventListener('submit',async function(e){e.preventDefault();var f=e.currentTarget,b=f.querySelector('button'),o=document.getElementById('result');b.disabled=true;o.textContent='Confirming...';try{var r=await fetch(location.pathname,{method:'POST',headers:{accept:'application/json'},credentials:'omit'});var j=await r.json().catch(function(){return null});if(r.ok){f.hidden=true;o.textContent=j&&j.status==='booked'?'Thank you: your email is confirmed and your meeting is booked.':'Thank you: your email is confirmed and your request went to the calendar owner.';var n=document.getElementById('next');if(n)n.hidden=false}else if(j&&j.error&&j.error.code==='not_pending'){f.hidden=true;o.textContent='This link was already used, has expired, or the request was withdrawn.'}else if(r.status===429){b.disabled=false;o.textContent='Too many attempts; please try again in a minute.'}else{b.disabled=false;o.textContent='Something went wrong; please try again.'}}catch(x){b.disabled=false;o.textContent='Network error; please try again.'}});`;
const sha = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const CSP = `default-src 'none'; script-src ${sha(SCRIPT)}; style-src ${sha(STYLE)}; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(title: string, body: string, withScript: boolean): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
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

const CLOSED: Record<Exclude<VerificationState, 'pending'>, [string, string]> = {
  confirmed: ['Email already confirmed', 'Your email is already confirmed; your request is with the calendar owner.'],
  expired: ['Link expired', 'This confirmation link has expired. Please send your request again.'],
  closed: ['Request withdrawn', 'This request was withdrawn, so there is nothing to confirm.'],
};

function notFoundPage(headers: Record<string, string> = {}): Response {
  return respond(404, page('Link not found', '<h1>Link not found</h1><p>This confirmation link is not valid. Check that you opened the whole link from the message.</p>', false), headers);
}

export async function contactVerificationPage(req: Request, ctx: { params: Promise<Record<string, string | string[] | undefined>> }): Promise<Response> {
  const token = String((await ctx.params).token ?? '');
  let headers: Record<string, string> = {};
  try {
    // The global per-IP limit, then (for a token that exists) the same per-verification budget as the POST.
    const db = await getDb();
    const checked = await tokenPageLimits(req, token, async (t) => {
      const id = await verificationIdForToken(db, t);
      return id && `verification:${id}`;
    });
    headers = checked.headers;
    if (!checked.limit.success) return respond(429, page('Too many requests', '<h1>Too many requests</h1><p>Please try again in a minute.</p>', false), headers);
    if (token.length > 128) return notFoundPage(headers);
    const v = await verificationPage(db, token, new Date());
    const statusLink = v.statusPath ? `<a href="${escapeHtml(v.statusPath)}">See your request's status</a>` : '';
    if (v.state !== 'pending') {
      const [title, text] = CLOSED[v.state];
      return respond(200, page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${statusLink ? `<p>${statusLink}</p>` : ''}`, false), headers);
    }
    const what = v.title ? `<strong>${escapeHtml(v.title)}</strong>` : 'a meeting';
    const who = v.ownerName ? ` with <strong>${escapeHtml(v.ownerName)}</strong>` : '';
    const when = v.start ? ` on <time datetime="${escapeHtml(v.start.toISOString())}">${escapeHtml(v.start.toUTCString())}</time>` : '';
    const body =
      `<h1>Confirm your email</h1><p>You asked for ${what}${who}${when}.</p>` +
      `<p>Confirm that <strong>${escapeHtml(v.email)}</strong> is your address, and your request goes to ${v.ownerName ? escapeHtml(v.ownerName) : 'the calendar owner'} for review.</p>` +
      `<form method="post" id="confirm"><button type="submit">Confirm</button></form><p id="result" role="status" aria-live="polite"></p>` +
      (statusLink ? `<p id="next" hidden>${statusLink}: the meeting's time and, once booked, "Add to calendar".</p>` : '<p id="next" hidden>The email we sent you has the link to follow your request.</p>');
    return respond(200, page('Confirm your email', body, true), headers);
  } catch (err) {
    if (isDomainError(err) && err.code === 'not_found') return notFoundPage(headers);
    log.error('contact verification page failed', { err, ip: clientIpOf(req, getConfig().trustProxy) });
    return respond(500, page('Something went wrong', '<h1>Something went wrong</h1><p>Please try again later.</p>', false));
  }
}
