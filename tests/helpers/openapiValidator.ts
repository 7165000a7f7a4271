import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { errorBodies, resolveResponse } from './openapiDoc';

/**
 * Checks an answer of the service against the OpenAPI document it serves (docs/architecture.md
 * "Every answer the tests receive is checked against the document"): the integration tests' `api()`
 * (tests/helpers/app.ts), their MCP tool calls (tests/integration/mcp/scenario.ts) and every request
 * of the end-to-end journeys (e2e/test.ts) hand each JSON answer under /v1 and /public to `check`.
 *
 * The rules:
 * - the path matches one of the document's path templates and the method is documented there;
 *   else a JSON answer is 404 `not_found` (unknown path), 405 `method_not_allowed`, 429
 *   `rate_limited` or (a path that is no valid percent-encoding) 400 `invalid_request` in the envelope (an HTML page or a calendar file served beside the API is not
 *   the document's);
 * - the status is one the operation documents;
 * - a documented JSON body validates against its schema; an error body against the body schema of
 *   its own `error.code`, which must be one the document lists for that status;
 * - a status documented without a body answers none, one documented with a JSON body answers JSON
 *   (but a browser asking for a page at an API URL may get HTML: content negotiation).
 *
 * The schemas are compiled once per (operation, status) or error code, with ajv (JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1) and ajv-formats.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is walked field by field
type Doc = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

/** `accept`: the request's Accept header, when the caller knows it (a browser asking for a page). */
export type Answer = { method: string; path: string; status: number; contentType: string | null; body: unknown; accept?: string | null };
export type Violation = { operation: string; status: number; pointer: string; message: string };

const DOC_ID = 'openapi.json';
const pointerPart = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
const MAX_ERRORS = 8;

/** The paths the document describes: JSON answers under them are checked. */
export function isDocumentedArea(pathname: string): boolean {
  return /^\/(v1|public)(\/|$)/.test(pathname);
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly templates: { template: string; regex: RegExp; params: number }[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Doc) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, validateFormats: true, discriminator: true });
    addFormats(this.ajv);
    this.ajv.addSchema(withoutDiscriminatorMappings(doc) as Obj, DOC_ID);
    this.templates = Object.keys(doc.paths ?? {})
      .map((template) => ({
        template,
        regex: new RegExp(`^${template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^$()|[\]\\]/g, '\\$&')).join('[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // a literal segment wins over a parameter (`/v1/agents/me` before `/v1/agents/{id}`)
      .sort((a, b) => a.params - b.params);
  }

  /** Every way the answer departs from the document (empty when it conforms). */
  check(answer: Answer): Violation[] {
    const method = answer.method.toLowerCase();
    const isJson = /^application\/json\b/i.test(answer.contentType ?? '');
    const hasBody = answer.body !== undefined && answer.body !== '';
    // Content negotiation: a browser (Accept names text/html and not JSON) gets the status page at
    // the API's URL (docs/public-scheduling.md "Booking pages"); the page is not the document's.
    if (/^text\/html\b/i.test(answer.contentType ?? '') && /text\/html/i.test(answer.accept ?? '') && !/application\/json/i.test(answer.accept ?? '')) return [];
    // A trailing slash names the same route (Next.js redirects it; the in-process router of the tests serves it).
    const path = answer.path.replace(/(.)\/+$/, '$1');
    const template = this.templates.find((t) => t.regex.test(path))?.template;
    const pathItem = template ? this.doc.paths[template] : undefined;
    const operation = pathItem?.[method];
    const label = operation ? `${answer.method.toUpperCase()} ${template} (${operation.operationId})` : `${answer.method.toUpperCase()} ${answer.path}`;
    const violation = (message: string, pointer = ''): Violation[] => [{ operation: label, status: answer.status, pointer, message }];

    if (!operation) {
      // Pages and files served beside the API (an HTML confirmation page, a calendar file) are not the document's.
      if (method === 'head' || method === 'options' || !isJson) return [];
      // Unknown paths answer 404 not_found and undocumented methods 405 method_not_allowed, in the envelope.
      // Answered before the routing: 429 rate_limited (the per-address limit counts these requests
      // too) and 400 invalid_request for a path that is no valid percent-encoding.
      const expected =
        answer.status === 429
          ? { status: 429, ref: '#/components/schemas/Error_rate_limited' }
          : answer.status === 400 && !decodes(path)
            ? { status: 400, ref: '#/components/schemas/Error_invalid_request' }
            : !template
            ? { status: 404, ref: '#/components/schemas/Error_not_found' }
            : { status: 405, ref: '#/components/schemas/MethodNotAllowedEnvelope' };
      if (answer.status !== expected.status) {
        return violation(template ? `${answer.method.toUpperCase()} is not documented on ${template}: expected 405 method_not_allowed` : `no path of the document matches: expected 404 not_found`);
      }
      return this.validate(`${DOC_ID}${expected.ref}`, answer.body, label, answer.status);
    }

    const response = operation.responses?.[String(answer.status)];
    if (!response) {
      const documented = Object.keys(operation.responses ?? {}).join(', ');
      const code = (answer.body as Obj | undefined)?.error?.code;
      return violation(`status ${answer.status}${code ? ` (${code})` : ''} is not documented (documented: ${documented})`);
    }
    const resolved = resolveResponse(this.doc, response);
    const schema = resolved?.content?.['application/json']?.schema;
    if (!schema) return hasBody && isJson ? violation('a JSON body where the document says the response has none') : [];
    if (!isJson) return violation(`expected application/json, got ${answer.contentType ?? 'no content type'}`);

    if (answer.status >= 400 && schema.oneOf) {
      // An error response: one body schema per code; validate against the one of the code answered.
      const code = (answer.body as Obj | undefined)?.error?.code;
      const bodies = errorBodies(this.doc, response);
      const index = bodies.findIndex((b) => (b.properties?.error?.properties?.code?.enum ?? []).includes(code));
      if (index < 0) {
        const codes = bodies.flatMap((b) => b.properties?.error?.properties?.code?.enum ?? []);
        return violation(`error.code ${JSON.stringify(code)} is not one the document lists for ${answer.status} (${codes.join(', ')})`, '/error/code');
      }
      const ref: string | undefined = schema.oneOf[index].$ref;
      if (ref) return this.validate(`${DOC_ID}${ref}`, answer.body, label, answer.status);
    }
    const at = response.$ref ? `${response.$ref}` : `#/paths/${pointerPart(template!)}/${method}/responses/${answer.status}`;
    return this.validate(`${DOC_ID}${at}/content/application~1json/schema`, answer.body, label, answer.status);
  }

  private validate(ref: string, body: unknown, operation: string, status: number): Violation[] {
    let fn = this.compiled.get(ref);
    if (!fn) this.compiled.set(ref, (fn = this.ajv.compile({ $ref: ref })));
    if (fn(body)) return [];
    return pruneErrors(fn.errors ?? []).slice(0, MAX_ERRORS).map((e) => ({
      operation,
      status,
      pointer: e.instancePath,
      message: describeError(e, body),
    }));
  }
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The document with `discriminator.mapping` left out: ajv reads the discriminator (a notification's
 * `kind` picks its schema, so an error names that schema's fields) from each branch's `kind` enum
 * and refuses an explicit mapping; the mapping says the same.
 */
function withoutDiscriminatorMappings(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutDiscriminatorMappings);
  if (!node || typeof node !== 'object') return node;
  const out: Obj = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'discriminator' && v && typeof v === 'object') out[k] = { propertyName: (v as Obj).propertyName };
    else out[k] = withoutDiscriminatorMappings(v);
  }
  return out;
}

/** Drops the summary errors of a oneOf/anyOf when the branches' own errors say more. */
function pruneErrors(errors: ErrorObject[]): ErrorObject[] {
  const specific = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  return specific.length > 0 ? specific : errors;
}

function valueAt(body: unknown, pointer: string): unknown {
  let v: unknown = body;
  for (const part of pointer.split('/').slice(1)) v = (v as Obj | undefined)?.[part.replaceAll('~1', '/').replaceAll('~0', '~')];
  return v;
}

function describeError(e: ErrorObject, body: unknown): string {
  const got = JSON.stringify(valueAt(body, e.instancePath)) ?? 'undefined';
  const params = e.keyword === 'enum' ? ` ${JSON.stringify(e.params.allowedValues)}` : e.keyword === 'additionalProperties' ? ` (${e.params.additionalProperty})` : '';
  return `${e.message}${params}, got ${got.length > 120 ? `${got.slice(0, 117)}...` : got} (schema ${e.schemaPath.replace(DOC_ID, '')})`;
}

/** One line per violation: the operation, the status, the JSON pointer into the body and what the document expects. */
export function formatViolations(violations: Violation[]): string {
  return violations.map((v) => `${v.operation} answered ${v.status}: ${v.pointer || '(body)'}: ${v.message}`).join('\n');
}

/** The error a test fails with when an answer departs from the document. */
export class OpenApiViolationError extends Error {
  constructor(readonly violations: Violation[]) {
    super(`The answer departs from the OpenAPI document (/v1/openapi.json; docs/architecture.md):\n${formatViolations(violations)}`);
    this.name = 'OpenApiViolationError';
  }
}
