/**
 * A small strict parser of the Prometheus text exposition format (version 0.0.4), for tests
 * of GET /metrics: every line is a `# HELP`, a `# TYPE` or a sample of a declared family;
 * metric and label names, label value escapes and sample values are checked; a histogram's
 * samples are `_bucket` (with `le`), `_sum` and `_count`. Anything else throws with the line.
 */
type Sample = { name: string; labels: Record<string, string>; value: number };
export type Family = { name: string; type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'; help: string; samples: Sample[] };

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  lines.forEach((line, i) => {
    const fail = (why: string): never => {
      throw new Error(`line ${i + 1}: ${why}: ${JSON.stringify(line.slice(0, 200))}`);
    };
    if (line === '') return;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!m) return; // a plain comment
      const [, kind, name, rest] = m;
      if (!NAME.test(name)) fail('bad metric name');
      const f = families.get(name) ?? { name, type: 'untyped' as const, help: '', samples: [] };
      if (kind === 'HELP') f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      else {
        if (!TYPES.has(rest)) fail('unknown type');
        if (f.samples.length) fail('TYPE after samples');
        f.type = rest as Family['type'];
      }
      families.set(name, f);
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)( -?\d+)?$/.exec(line);
    if (!m) fail('not a sample');
    const [, name, rawLabels, rawValue] = m!;
    const labels = rawLabels ? parseLabels(rawLabels.slice(1, -1), fail) : {};
    const value = parseValue(rawValue, fail);
    const family = familyOf(families, name);
    if (!family) fail('sample of an undeclared family');
    if (family!.type === 'histogram') {
      if (name === `${family!.name}_bucket` && labels.le === undefined) fail('bucket without le');
      if (![`${family!.name}_bucket`, `${family!.name}_sum`, `${family!.name}_count`].includes(name)) fail('not a histogram series');
    }
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) fail('duplicate series');
    seen.add(key);
    family!.samples.push({ name, labels, value });
  });
  return families;
}

function familyOf(families: Map<string, Family>, sample: string): Family | undefined {
  const exact = families.get(sample);
  if (exact) return exact;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const f = families.get(sample.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || f.type === 'summary')) return f;
  }
  return undefined;
}

function parseLabels(text: string, fail: (why: string) => never): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) fail('label without =');
    const name = text.slice(i, eq);
    if (!LABEL.test(name)) fail(`bad label name ${name}`);
    if (text[eq + 1] !== '"') fail('label value not quoted');
    let j = eq + 2;
    let value = '';
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === '\\') {
        const next = text[++j];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else fail('bad escape in label value');
      } else value += text[j];
    }
    if (j >= text.length) fail('unterminated label value');
    if (name in labels) fail(`label ${name} twice`);
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (i < text.length) fail('labels not separated by a comma');
  }
  return labels;
}

function parseValue(raw: string, fail: (why: string) => never): number {
  // As Prometheus reads values (Go's ParseFloat): NaN and Inf in any letter case (prom-client writes `Nan`).
  if (/^[+]?inf$/i.test(raw)) return Infinity;
  if (/^-inf$/i.test(raw)) return -Infinity;
  if (/^nan$/i.test(raw)) return NaN;
  if (!/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) fail('bad sample value');
  return Number(raw);
}

/** The value of one series (0 when absent), matching every label given. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = familyOf(families, name);
  let sum = 0;
  for (const s of family?.samples ?? []) {
    if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) sum += s.value;
  }
  return sum;
}
