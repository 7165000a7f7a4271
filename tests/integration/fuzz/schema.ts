import fc from 'fast-check';

/**
 * Request values derived from the OpenAPI document's JSON Schemas: valid
 * values (biased towards domain values through `hints`, so requests pass
 * validation and reach the handlers) and mutations of them (wrong types,
 * missing and extra fields, boundary values, hostile strings).
 */
export type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
  format?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  $ref?: string;
};

/** Domain-aware values for a property (or parameter) name; undefined: schema-derived only. */
export type Hints = (name: string, schema: Schema) => fc.Arbitrary<unknown> | undefined;
export type Resolve = (ref: string) => Schema;

export function validArb(s: Schema, hints: Hints, resolve: Resolve, name = ''): fc.Arbitrary<unknown> {
  if (s.$ref) return validArb(resolve(s.$ref), hints, resolve, name);
  const plain = plainArb(s, hints, resolve, name);
  const hint = name ? hints(name, s) : undefined;
  return hint ? fc.oneof({ weight: 4, arbitrary: hint }, { weight: 1, arbitrary: plain }) : plain;
}

function plainArb(s: Schema, hints: Hints, resolve: Resolve, name: string): fc.Arbitrary<unknown> {
  if (s.allOf?.length) return validArb(s.allOf[0], hints, resolve, name);
  const branches = s.anyOf ?? s.oneOf;
  if (branches?.length) return fc.oneof(...branches.map((b) => validArb(b, hints, resolve, name)));
  if ('const' in s) return fc.constant(s.const);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  if (types.length > 1) return fc.oneof(...types.map((t) => plainArb({ ...s, type: t }, hints, resolve, name)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = s.exclusiveMinimum !== undefined ? Math.floor(s.exclusiveMinimum) + 1 : (s.minimum ?? -1_000_000);
      const max = s.exclusiveMaximum !== undefined ? Math.ceil(s.exclusiveMaximum) - 1 : (s.maximum ?? 1_000_000);
      return fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) });
    }
    case 'number':
      return fc.double({
        min: s.exclusiveMinimum ?? s.minimum ?? -1e6,
        max: s.exclusiveMaximum ?? s.maximum ?? 1e6,
        minExcluded: s.exclusiveMinimum !== undefined,
        maxExcluded: s.exclusiveMaximum !== undefined,
        noNaN: true,
        noDefaultInfinity: true,
      });
    case 'string':
      return stringArb(s);
    case 'array': {
      const minLength = s.minItems ?? 0;
      const maxLength = Math.max(minLength, Math.min(s.maxItems ?? 4, 4));
      return fc.array(s.items ? validArb(s.items, hints, resolve, name) : fc.jsonValue({ maxDepth: 1 }), { minLength, maxLength });
    }
    case 'object': {
      const props = s.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validArb(v, hints, resolve, k)]));
      return fc.record(model, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringArb(s: Schema): fc.Arbitrary<string> {
  const minLength = s.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(s.maxLength ?? 40, 40));
  if (s.format === 'date-time') return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  if (s.format === 'email') return fc.emailAddress().filter((e) => e.length <= (s.maxLength ?? 254));
  if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= minLength && v.length <= (s.maxLength ?? Infinity));
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ minLength, maxLength }) },
    // unicode (each grapheme here is at most two UTF-16 units, so the length limit holds)
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength, maxLength: Math.max(minLength, Math.floor(maxLength / 2)) }).filter((v) => v.length >= minLength && v.length <= maxLength) },
  );
}

// ---------------------------------------------------------------- hostile values

const deepArray = (depth: number): unknown => JSON.parse('['.repeat(depth) + ']'.repeat(depth));
const deepObject = (depth: number): unknown => JSON.parse('{"a":'.repeat(depth) + '{}' + '}'.repeat(depth));

/** Values that break naive code: type confusion, number edges, NUL, RTL, emoji, lone surrogates, huge and deep values. */
const HOSTILE: unknown[] = [
  null, true, false, 0, -1, 1.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 53 + 1), 1e308, -1e308, 5e-324,
  '', ' ', 'NaN', 'Infinity', '-Infinity', '1e999', '-0', '0x1F', 'null', 'undefined', 'true', '[object Object]',
  '\u0000', 'a\u0000b', '\u202Egnp.exe', 'مرحبا بالعالم', 'שלום\u200F', '\u200B\u200D\uFEFF', '😀👨‍👩‍👧‍👦🏳️‍🌈', '\ud800', 'x\udfffy', '\ud83d',
  "'; drop table owners; --", '" OR 1=1 --', '<script>alert(1)</script>', '../../../etc/passwd', '%00%2F%2e%2e', '${jndi:ldap://x/a}', '{{7*7}}',
  '2030-02-30T25:61:00Z', '2030-01-01T00:00:00+02:00', '2030-01-01', '9999-12-31T23:59:59.999Z', '0000-01-01T00:00:00Z', '+275760-09-13T00:00:00.000Z',
  '1970-01-01T00:00:00Z', '2030-01-01T00:00:00.123456789Z', 'org:*', 'user:*', 'user:', 'user:a@b', 'A@EXAMPLE.COM', ' a@example.com ', 'a@b', '@',
  'x'.repeat(100_000), '😀'.repeat(25_000), '\u0000'.repeat(1000), 'é'.repeat(60_000),
  [], [null], [[[]]], Array.from({ length: 10_000 }, () => 0), {}, { '': '' }, JSON.parse('{"__proto__":{"polluted":true}}'), { constructor: { prototype: { polluted: true } } },
  deepArray(1000), deepObject(1000), deepArray(3000),
];

const loneSurrogates = fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 4 });

export const hostileArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: loneSurrogates },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean()) },
);

/** Boundary (mostly invalid) values for one schema. */
function boundaries(s: Schema | undefined): unknown[] {
  if (!s) return [];
  const out: unknown[] = [];
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('integer') || types.includes('number')) {
    for (const b of [s.minimum, s.maximum, s.exclusiveMinimum, s.exclusiveMaximum]) if (b !== undefined) out.push(b, b - 1, b + 1, b - 0.5, b + 0.5);
    out.push(0, -0, 0.1, 2 ** 53 + 1, 1e308, '5', '1e3');
  }
  if (types.includes('string')) {
    if (s.maxLength !== undefined) out.push('a'.repeat(s.maxLength + 1), 'é'.repeat(s.maxLength + 1), '😀'.repeat(s.maxLength));
    if (s.minLength) out.push('');
    if (s.format === 'date-time') out.push('2030-01-01T09:00:00Z', '2030-01-01T09:00:00', '2030-13-01T00:00:00Z', '2030-01-01 09:00:00Z', '1999-12-31T23:59:60Z', String(Date.now()));
    if (s.format === 'email') out.push('a'.repeat(250) + '@example.com', 'a@b.c\u0000', 'UPPER@EXAMPLE.COM', 'a..b@example.com', 'a@[127.0.0.1]', '"q"@example.com');
    if (s.pattern) out.push('-a', 'a-', 'ABC', 'a'.repeat(65), '24:01', '23:60', '00:00', '24:00', '9:00', 'a b');
  }
  if (types.includes('array')) {
    if (s.maxItems !== undefined) out.push(Array.from({ length: s.maxItems + 1 }, () => null));
    if (s.minItems) out.push([]);
  }
  if (s.enum) for (const e of s.enum) if (typeof e === 'string') out.push(e.toUpperCase(), `${e} `, `${e}\u0000`);
  if (types.includes('boolean')) out.push('true', 1, 0);
  return out;
}

type Path = (string | number)[];
type Site = { path: Path; schema?: Schema };

/** Every position of a value (the root included), with its schema where known. */
function sites(value: unknown, s: Schema | undefined, resolve: Resolve, path: Path = []): Site[] {
  const schema = s?.$ref ? resolve(s.$ref) : s;
  const out: Site[] = [{ path, schema }];
  if (Array.isArray(value)) value.slice(0, 5).forEach((v, i) => out.push(...sites(v, itemsOf(schema), resolve, [...path, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...sites(v, propOf(schema, k), resolve, [...path, k]));
  return out;
}
const branchesOf = (s?: Schema): Schema[] => (s ? [s, ...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])] : []);
const propOf = (s: Schema | undefined, k: string) => branchesOf(s).find((b) => b.properties?.[k])?.properties?.[k];
const itemsOf = (s: Schema | undefined) => branchesOf(s).find((b) => b.items)?.items;

function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (!path.length) return value;
  const copy = structuredClone(root) as Record<string | number, unknown>;
  let node = copy;
  for (const p of path.slice(0, -1)) node = node[p] as Record<string | number, unknown>;
  node[path[path.length - 1]] = value;
  return copy;
}
function deleteAt(root: unknown, path: Path): unknown {
  const copy = structuredClone(root) as Record<string, unknown>;
  let node = copy;
  for (const p of path.slice(0, -1)) node = node[p] as Record<string, unknown>;
  if (Array.isArray(node)) node.splice(path[path.length - 1] as number, 1);
  else delete node[path[path.length - 1]];
  return copy;
}

export type Mutant = { mutation: string; value: unknown };

/** One mutation of a valid value: a wrong or boundary value somewhere, a field dropped or added, or the whole value replaced. */
export function mutate(value: unknown, s: Schema | undefined, resolve: Resolve): fc.Arbitrary<Mutant> {
  const all = sites(value, s, resolve);
  const objects = all.filter((x) => {
    let node: unknown = value;
    for (const p of x.path) node = (node as Record<string | number, unknown>)[p];
    return node !== null && typeof node === 'object';
  });
  const members = all.filter((x) => x.path.length > 0);
  const withBounds = all.map((x) => ({ ...x, b: boundaries(x.schema) })).filter((x) => x.b.length);
  const name = (p: Path) => p.join('.') || '(root)';
  const options: fc.WeightedArbitrary<Mutant>[] = [
    { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...all), hostileArb).map(([x, v]) => ({ mutation: `hostile ${name(x.path)}`, value: setAt(value, x.path, v) })) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...objects), fc.constantFrom('extra', '__proto__', 'constructor', 'owner_id', 'customer_id', 'id', '', 'ÿ😀'), hostileArb).map(([x, k, v]) => {
        let node: unknown = value;
        for (const p of x.path) node = (node as Record<string | number, unknown>)[p];
        // a computed key makes an own property, `__proto__` included
        const added = Array.isArray(node) ? [...node, v] : { ...(node as object), [k]: v };
        return { mutation: `extra ${name(x.path)}.${k}`, value: setAt(value, x.path, added) };
      }),
    },
  ];
  if (withBounds.length) options.push({ weight: 4, arbitrary: fc.constantFrom(...withBounds).chain((x) => fc.constantFrom(...x.b).map((v) => ({ mutation: `boundary ${name(x.path)}`, value: setAt(value, x.path, v) }))) });
  if (members.length) options.push({ weight: 2, arbitrary: fc.constantFrom(...members).map((x) => ({ mutation: `drop ${name(x.path)}`, value: deleteAt(value, x.path) })) });
  return fc.oneof(...options);
}
