/**
 * Reading the OpenAPI document's shared pieces back (server/http/openapi.ts): an error
 * response is a `$ref` to a response component whose body is a `oneOf` of one schema
 * per error code (`Error_<code>`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is walked field by field
type Doc = any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Obj = Record<string, any>;

const refName = (ref: string) => ref.split('/').pop()!;

/** A response, its `$ref` followed. */
export function resolveResponse(doc: Doc, r: Obj): Obj {
  return r?.$ref ? doc.components.responses[refName(r.$ref)] : r;
}

/** The body schemas of an error response, one per code (`$ref`s followed). */
export function errorBodies(doc: Doc, r: Obj): Obj[] {
  const schema = resolveResponse(doc, r)?.content?.['application/json']?.schema;
  if (!schema) return [];
  const members: Obj[] = schema.oneOf ?? [schema];
  return members.map((m) => (m.$ref ? doc.components.schemas[refName(m.$ref)] : m));
}

/** The `error.code` values an error response documents. */
export function documentedCodes(doc: Doc, r: Obj): string[] {
  return errorBodies(doc, r).flatMap((b) => b.properties?.error?.properties?.code?.enum ?? []);
}

/** One envelope with the properties of every code's body merged (for checks on the detail fields). */
export function mergedEnvelope(doc: Doc, r: Obj): Obj {
  const out: Obj = { properties: {} };
  for (const b of errorBodies(doc, r)) {
    for (const [k, v] of Object.entries<Obj>(b.properties ?? {})) {
      if (k === 'error') out.properties.error = { properties: { ...(out.properties.error?.properties ?? {}), ...v.properties } };
      else out.properties[k] ??= v;
    }
  }
  return out;
}
