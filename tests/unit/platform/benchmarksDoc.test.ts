import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorOf, endMarkOf, historyEntries, refreshDoc, refreshHistoryIndex, renderSection, replaceSection, startMarkOf, writeBenchSection, type BenchRun } from '@/bench/lib/benchDoc';
import { BENCH_SECTIONS } from '@/bench/lib/benchSections';

/**
 * docs/benchmarks.md is a results page (docs/benchmarks.md's own introduction): one section per
 * benchmark of bench/lib/benchSections.ts, in that order, each between its markers; the dated
 * findings are in docs/benchmarks/history/. Every reference to a section by name, anchor or history
 * file, anywhere in the repository, lands.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const PAGE = 'docs/benchmarks.md';
const HISTORY = 'docs/benchmarks/history';
const page = read(PAGE);
const headingsOf = (text: string) => new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => m[1].trim()));

describe('the results page', () => {
  it('has every section of the registry once, between its markers, in the registry order, with its heading', () => {
    let last = -1;
    for (const s of BENCH_SECTIONS) {
      const a = page.indexOf(startMarkOf(s));
      expect(a, `start marker of ${s.name} (generated: ${s.generated})`).toBeGreaterThan(last);
      expect(page.indexOf(`<!-- bench:${s.name}:start`, a + 1), `a second ${s.name} section`).toBe(-1);
      const b = page.indexOf(endMarkOf(s.name), a);
      expect(b, `end marker of ${s.name}`).toBeGreaterThan(a);
      const block = page.slice(a, b);
      expect(block.split('\n')[1]).toBe(`## ${s.title}`);
      for (const part of ['**Measures:** ', '**Command:** `', '| Figure | Target | Latest | Status |', '**History:** '])
        expect(block, `${s.name}: ${part}`).toContain(part);
      expect(block, `${s.name}: the latest run's day`).toMatch(/^\*\*Latest run:\*\* \d{4}-\d{2}-\d{2}.* · commit .+ · .+ · `.+`$/m);
      last = b;
    }
    const names = new Set<string>(BENCH_SECTIONS.map((s) => s.name));
    const markers = [...page.matchAll(/<!-- bench:([a-z0-9-]+):start/g)].map((m) => m[1]).filter((n) => n !== 'contents');
    expect(markers.filter((n) => !names.has(n)), 'markers of no registered section').toEqual([]);
  });

  it('is up to date: the contents table, the history lines and the history index', () => {
    expect(refreshDoc(page) === page, 'run `npx tsx bench/refresh-docs.ts`').toBe(true);
    const index = read(`${HISTORY}/README.md`);
    expect(refreshHistoryIndex(index) === index, 'run `npx tsx bench/refresh-docs.ts`').toBe(true);
  });

  it('every section a script generates is written by that script through writeBenchSection', () => {
    for (const s of BENCH_SECTIONS.filter((x) => x.generated)) {
      const dir = path.join(ROOT, s.source.replace(/\.ts$/, ''));
      const files = [path.join(ROOT, s.source), ...(fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [])];
      const writes = files.some((f) => fs.readFileSync(f, 'utf8').includes(`writeBenchSection('${s.name}'`));
      expect(writes, `${s.source} writes the section ${s.name}`).toBe(true);
    }
  });

  it('every history file names the section(s) it belongs to, and each is linked from them', () => {
    const files = fs.readdirSync(path.join(ROOT, HISTORY)).filter((f) => f !== 'README.md');
    const entries = historyEntries(path.join(ROOT, HISTORY));
    expect(entries.map((e) => e.file).sort()).toEqual(files.sort()); // every file is named YYYY-MM-DD-topic.md
    for (const e of entries) {
      expect(e.sections.length, `${e.file}: a "Results page:" line linking to a section`).toBeGreaterThan(0);
      expect(page, e.file).toContain(`](benchmarks/history/${e.file})`);
    }
  });
});

describe('references to the results page and its history', () => {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
    .toString()
    .split('\n')
    .filter((f) => /\.(ts|tsx|mjs|js|md|sql|css)$/.test(f) && !f.startsWith('node_modules/') && fs.existsSync(path.join(ROOT, f)));
  const pageHeadings = headingsOf(page);

  it('every docs/benchmarks.md reference followed by a quoted section name names a section of the page', () => {
    const bad: string[] = [];
    for (const f of files.filter((x) => !x.startsWith(`${HISTORY}/`))) {
      // Comments and prose wrap: a reference may continue on the next line after a comment marker.
      const text = read(f).replace(/[ \t]*\n[ \t]*(?:\*|\/\/|--|>)?[ \t]*/g, ' ');
      for (const m of text.matchAll(/benchmarks\.md\)?,?\s*\(?"([^"]+)"/g)) if (!pageHeadings.has(m[1])) bad.push(`${f}: "${m[1]}"`);
    }
    expect(bad).toEqual([]);
  });

  it('every link or path to the page with an anchor, or to a history file, lands', () => {
    const anchors = new Set([...pageHeadings].map(anchorOf));
    const bad: string[] = [];
    for (const f of files) {
      const text = read(f);
      for (const m of text.matchAll(/benchmarks\.md#([a-z0-9_-]+)/g)) if (!anchors.has(m[1])) bad.push(`${f}: #${m[1]}`);
      for (const m of text.matchAll(/benchmarks\/history\/([\w.-]+\.md)/g)) if (!fs.existsSync(path.join(ROOT, HISTORY, m[1]))) bad.push(`${f}: ${m[1]}`);
    }
    // Relative markdown links inside the history (file to file, and to the index).
    for (const f of fs.readdirSync(path.join(ROOT, HISTORY))) {
      for (const m of read(`${HISTORY}/${f}`).matchAll(/\]\(([\w.-]+\.md)\)/g)) if (!fs.existsSync(path.join(ROOT, HISTORY, m[1]))) bad.push(`${HISTORY}/${f}: ${m[1]}`);
    }
    expect(bad).toEqual([]);
  });
});

describe('writeBenchSection', () => {
  const run: BenchRun = {
    measures: 'What a test run measures.',
    command: 'npx tsx bench/webhooks.ts',
    run: 'npx tsx bench/webhooks.ts --quick --docs',
    date: new Date('2027-01-02T03:04:00Z'),
    commit: '`0000000`',
    host: 'a test host',
    figures: [
      { figure: 'lag p99', target: '<= 1 s', latest: '1,234 ms', met: false },
      { figure: 'a figure | with a bar', latest: '5' },
    ],
    notes: ['A note.'],
  };

  it('replaces its own section and nothing else but the contents table', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-doc-')), 'benchmarks.md');
    fs.writeFileSync(file, page);
    writeBenchSection('webhooks', run, file);
    const after = fs.readFileSync(file, 'utf8');
    const block = (doc: string, name: string) => doc.slice(doc.indexOf(`<!-- bench:${name}:start`), doc.indexOf(endMarkOf(name)));
    const outside = (doc: string) => doc.replace(block(doc, 'webhooks'), '').replace(block(doc, 'contents'), '');
    expect(outside(after)).toBe(outside(page));
    expect(block(after, 'webhooks')).toContain('| lag p99 | <= 1 s | 1,234 ms | **missed** |');
    expect(block(after, 'webhooks')).toContain('| a figure \\| with a bar | (none) | 5 |  |');
    expect(block(after, 'webhooks')).toContain('**Latest run:** 2027-01-02 03:04 UTC · commit `0000000` · a test host · `npx tsx bench/webhooks.ts --quick --docs`');
    expect(block(after, 'webhooks')).toContain('](benchmarks/history/2026-11-26-webhooks.md)'); // the history line is kept
    expect(block(after, 'contents')).toMatch(/\| \[Webhooks\]\(#webhooks\) \| `bench\/webhooks\.ts` \| 2027-01-02 \| \*\*1 missed\*\* \|/);
    expect(refreshDoc(after)).toBe(after);
  });

  it('puts a section the page does not have yet where the registry orders it', () => {
    const doc = replaceSection(replaceSection('# Benchmarks\n', 'abuse', 'abuse body'), 'availability', 'availability body');
    const withBooking = replaceSection(doc, 'booking', renderSection('booking', run));
    const order = [...withBooking.matchAll(/<!-- bench:([a-z-]+):start/g)].map((m) => m[1]);
    expect(order).toEqual(['availability', 'booking', 'abuse']);
    expect(replaceSection(withBooking, 'booking', 'new body')).toContain(`${startMarkOf(BENCH_SECTIONS[2])}\nnew body\n${endMarkOf('booking')}`);
    expect(replaceSection(withBooking, 'booking', 'new body')).not.toContain('What a test run measures.');
  });
});
