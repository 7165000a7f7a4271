import fc from 'fast-check';
import { collectLogLines } from '../../helpers/logLines';
import { api, type ApiResponse } from '../../helpers/app';
import { listRouteFiles, matchRoute } from '../../helpers/routes';
import { ipPool } from '../security/world';

const routeFiles = listRouteFiles();

/**
 * Fuzzing harness: the seed (FUZZ_SEED replays a run), one `send` that
 * checks the invariants on every response, and the tallies printed at the end.
 *
 * Invariants, for EVERY response:
 *  - status < 500;
 *  - a JSON body (except the contact-verification HTML page, which is a page by design (docs/public-scheduling.md));
 *  - every 4xx in the docs/api.md envelope: error.code and error.message strings, pending_notifications array;
 *  - every 401 with `WWW-Authenticate: Bearer ...`, every 429 with Retry-After, auth codes (401/403) lowercase;
 *  - no /public body shows a UUID-shaped string (internal ids).
 *  - with `documented`: every error code is one the OpenAPI document lists for that operation and status.
 * Violations are collected (not thrown), so one run lists every distinct failure, each with a replayable request.
 */
export const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ Math.floor(Math.random() * 2 ** 31)) | 0;
fc.configureGlobal({ seed: SEED });

export type FuzzRequest = {
  /** What is being fuzzed (operationId, or the transport family). */
  label: string;
  method: string;
  path: string;
  key?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
  rawBody?: string | Uint8Array;
  /** The mutation applied, for the report. */
  mutation?: string;
  /** Client address (X-Forwarded-For); default a random one of this file's /16. */
  ip?: string;
};

type Violation = { problems: string[]; req: FuzzRequest; status: number; code?: string; excerpt: string; log?: string };

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const PAGE = /^\/public\/contact-verifications\/[^/]+\/confirm$/;
const clip = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}...(${s.length} chars)` : s);

/** `documented(req, status)`: the error codes the document allows for this answer, or null when not checkable (the request left its operation's path). */
export function createFuzzer(file: string, opts: { documented?: (req: FuzzRequest, status: number) => readonly string[] | null } = {}) {
  const ip = ipPool(100 + Math.floor(Math.random() * 100));
  const byStatus = new Map<number, number>();
  const byCode = new Map<string, number>();
  const byLabel = new Map<string, number>();
  const violations: Violation[] = [];
  const serverLog = new Map<string, string>();
  let total = 0;
  let unrouted = 0;
  let collector: ReturnType<typeof collectLogLines> | undefined;
  const bump = <K>(m: Map<K, number>, k: K) => m.set(k, (m.get(k) ?? 0) + 1);

  function check(req: FuzzRequest, res: ApiResponse): string[] {
    const problems: string[] = [];
    const pathname = new URL(req.path, 'http://x').pathname;
    const type = res.headers.get('content-type') ?? '';
    const page = req.method === 'GET' && PAGE.test(pathname) && type.startsWith('text/html');
    if (res.status >= 500) problems.push(`status ${res.status}`);
    if (!page && !type.startsWith('application/json')) problems.push(`content-type "${type}"`);
    if (!page && res.status >= 400) {
      const b = res.body;
      if (typeof b?.error?.code !== 'string') problems.push('4xx without error.code string');
      if (typeof b?.error?.message !== 'string') problems.push('4xx without error.message string');
      if (!Array.isArray(b?.pending_notifications)) problems.push('4xx without pending_notifications array');
    }
    const code: unknown = res.body?.error?.code;
    if ((res.status === 401 || res.status === 403) && typeof code === 'string' && code !== code.toLowerCase()) problems.push(`auth code not lowercase: ${code}`);
    if (res.status === 401 && !/^Bearer\b/.test(res.headers.get('www-authenticate') ?? '')) problems.push('401 without WWW-Authenticate: Bearer');
    if (res.status === 429 && !res.headers.get('retry-after')) problems.push('429 without Retry-After');
    const allowed = typeof code === 'string' && res.status >= 400 ? opts.documented?.(req, res.status) : null;
    if (allowed && !allowed.includes(code as string)) problems.push(`code ${String(code)} not in the documented enum of ${res.status}`);
    const uuid = pathname.startsWith('/public') ? UUID.exec(res.text) : null;
    if (uuid) problems.push(`/public body shows a UUID (internal id?) ${uuid[0]}`);
    return problems;
  }

  async function send(req: FuzzRequest): Promise<ApiResponse | null> {
    // `..` segments can climb out of /v1 and /public: Next itself answers those paths, none of our routes
    if (!matchRoute(routeFiles, new URL(req.path, 'http://x').pathname)) {
      unrouted++;
      return null;
    }
    total++;
    bump(byLabel, req.label);
    let res: ApiResponse;
    try {
      res = await api(req.method, req.path, { key: req.key ?? undefined, headers: req.headers, body: req.body, rawBody: req.rawBody, ip: req.ip ?? ip(), bodySecrets: false });
    } catch (err) {
      // the in-process harness could not even build or route the Request: a generator bug, reported as such
      violations.push({ problems: [`harness error: ${(err as Error).message}`], req, status: 0, excerpt: '' });
      return null;
    }
    bump(byStatus, res.status);
    const code = typeof res.body?.error?.code === 'string' ? (res.body.error.code as string) : undefined;
    if (code) bump(byCode, code);
    const problems = check(req, res);
    if (problems.length) {
      const rid = res.headers.get('x-request-id') ?? '';
      violations.push({ problems, req, status: res.status, code, excerpt: clip(res.text), log: serverLog.get(rid) });
    }
    return res;
  }

  return {
    ip,
    send,
    /** Requests answered by the API. */
    get total() {
      return total;
    },
    /** Requests generated (answered, or not sent because Next, not the API, would answer them). */
    get generated() {
      return total + unrouted;
    },
    /** Keep the server's error log lines (by request id) for the report instead of printing thousands of them. */
    captureServerLog() {
      // Error lines of a request go to the report (by request id), not to the terminal.
      collector = collectLogLines((line) => {
        const rid = typeof line.request_id === 'string' && line.level === 'error' ? line.request_id : null;
        if (rid) serverLog.set(rid, clip(errorMessageOf(line), 600));
        return !rid;
      });
    },
    /** Print the tallies; return one line per distinct violation (operation, problem, status, code) with a replayable example. */
    finish(): string[] {
      collector?.restore();
      const sorted = <K>(m: Map<K, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
      console.log(
        [
          `[fuzz] ${file}: FUZZ_SEED=${SEED} requests=${total}`,
          `  by status: ${sorted(byStatus).map(([s, n]) => `${s}=${n}`).join(' ')}`,
          `  by code:   ${sorted(byCode).map(([s, n]) => `${s}=${n}`).join(' ')}`,
          `  by target: ${sorted(byLabel).map(([s, n]) => `${s}=${n}`).join(' ')}`,
          `  not sent (the path left /v1 and /public, so Next answers it, not the API): ${unrouted}`,
          `  violations: ${violations.length}`,
        ].join('\n'),
      );
      const groups = new Map<string, { n: number; v: Violation }>();
      for (const v of violations) {
        const cause = v.log ? ` | ${v.log.split(' <- ')[0].replace(/\d+/g, 'N').slice(0, 100)}` : '';
        const k = `${v.req.label} | ${v.problems.join('; ')} | ${v.status} ${v.code ?? ''}${cause}`;
        const g = groups.get(k);
        if (g) g.n++;
        else groups.set(k, { n: 1, v });
      }
      return [...groups.entries()].map(([k, { n, v }]) => {
        const body = v.req.rawBody !== undefined ? (typeof v.req.rawBody === 'string' ? v.req.rawBody : `<${v.req.rawBody.length} bytes>`) : v.req.body === undefined ? '' : stringify(v.req.body);
        return [
          `${k} (x${n})`,
          `    e.g. ${v.req.method} ${clip(v.req.path, 200)}${v.req.mutation ? ` [${v.req.mutation}]` : ''}`,
          `    headers ${clip(JSON.stringify({ ...v.req.headers, ...(v.req.key ? { authorization: `Bearer ${clip(v.req.key, 20)}` } : {}) }), 300)}`,
          `    body ${clip(body, 400)}`,
          `    -> ${v.excerpt}`,
          v.log ? `    server log: ${v.log}` : '',
        ]
          .filter(Boolean)
          .join('\n');
      });
    },
  };
}

function stringify(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch (err) {
    return `<${(err as Error).message}>`;
  }
}

/** The error message of a JSON log line (the cause of a 500), else the line. */
function errorMessageOf(line: Record<string, unknown>): string {
  const err = line.err as { message?: string; cause?: { message?: string } | string } | undefined;
  const cause = err?.cause ? `${typeof err.cause === 'string' ? err.cause : err.cause.message} <- ` : '';
  return cause + String(err?.message ?? line.msg ?? JSON.stringify(line));
}

/** Hostile raw path segments (already in URL syntax): traversal, encoded slashes and NULs, unicode, very long ids. */
export const HOSTILE_SEGMENTS = [
  '..', '.', '%2e%2e', '..%2F..%2Fagents', '%2F', 'a%2Fb', '%2f..%2f', '%00', 'a%00b', '%252F', '%25', '%20', '+', '*', ';', ',', '~', '%27%20OR%201%3D1--',
  encodeURIComponent('😀'), encodeURIComponent('שלום\u200F'), encodeURIComponent('\u202E'), encodeURIComponent('\ud83d\ude00x'), '%EF%BB%BF',
  'x'.repeat(65), 'x'.repeat(10_000), '0', '-1', 'null', 'undefined', 'NaN', '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF',
  '0190a8f0-1234-7000-8000-00000000000g', 'ak_' + 'x'.repeat(43), 'pt_' + 'A'.repeat(43), 'cv_', 'rc_x', 'admin', 'v1', 'public',
];
