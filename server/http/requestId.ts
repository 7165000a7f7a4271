import { newId } from '@/server/domain/ids';
import { activeTraceId, recordPageRequestId } from '@/server/observability/tracing';

/** A request id a client may send (X-Request-Id): 1 to 128 of A-Z a-z 0-9 . _ - (docs/api.md "Request ids"). */
const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * The request id of an answer, on every surface (/v1 and /public through the REST wrapper,
 * tRPC, MCP): the client's X-Request-Id when well-formed, else the trace id when tracing
 * (called inside the request's span; docs/operations.md "Traces"), else a new id.
 */
export function requestIdOf(req: Request): string {
  const incoming = req.headers.get('x-request-id');
  return incoming && REQUEST_ID_RE.test(incoming) ? incoming : (activeTraceId() ?? newId());
}

/**
 * The request id of a page's answer (proxy.ts), chosen as requestIdOf chooses it, and recorded
 * as `request_id` on the page's request span (Next.js's) when tracing (docs/operations.md "Traces").
 */
export function pageRequestId(req: Request): string {
  const requestId = requestIdOf(req);
  recordPageRequestId(requestId);
  return requestId;
}

/** `res` with its X-Request-Id set (a copy when its headers cannot be changed). */
export function withRequestId(res: Response, requestId: string): Response {
  try {
    res.headers.set('x-request-id', requestId);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    copy.headers.set('x-request-id', requestId);
    return copy;
  }
}
