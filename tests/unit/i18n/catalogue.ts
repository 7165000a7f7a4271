import fs from 'node:fs';
import path from 'node:path';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { printAST } from '@formatjs/icu-messageformat-parser/printer.js';

/** Helpers of the catalogue tests (docs/public-scheduling.md "Languages"): read messages/<locale>/*.json, flatten, read ICU arguments, make the pseudo-locale. */
const ROOT = path.resolve(import.meta.dirname, '../../..');
export const MESSAGES = path.join(ROOT, 'messages');

type Tree = { [key: string]: string | Tree };

/** Every catalogue file of a locale (`public.json`, ...) flattened to `file:ns.key` → message. */
export function flatCatalogue(locale: string): Map<string, string> {
  const out = new Map<string, string>();
  const dir = path.join(MESSAGES, locale);
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
    const walk = (tree: Tree, prefix: string) => {
      for (const [k, v] of Object.entries(tree)) {
        if (typeof v === 'string') out.set(`${file}:${prefix}${k}`, v);
        else walk(v, `${prefix}${k}.`);
      }
    };
    walk(JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as Tree, '');
  }
  return out;
}

/**
 * A message's arguments as a sorted list of `name:kind` (kind: argument, number, date, time,
 * plural, selectordinal, select, tag), plus each select's options: what every translation of the
 * message must take, whatever its wording (plural categories differ by language and are not compared).
 */
export function icuSignature(message: string): string[] {
  const found = new Set<string>();
  const visit = (els: MessageFormatElement[]) => {
    for (const el of els) {
      switch (el.type) {
        case TYPE.argument:
          found.add(`${el.value}:argument`);
          break;
        case TYPE.number:
          found.add(`${el.value}:number`);
          break;
        case TYPE.date:
          found.add(`${el.value}:date`);
          break;
        case TYPE.time:
          found.add(`${el.value}:time`);
          break;
        case TYPE.select:
          found.add(`${el.value}:select[${Object.keys(el.options).sort().join('|')}]`);
          for (const o of Object.values(el.options)) visit(o.value);
          break;
        case TYPE.plural:
          found.add(`${el.value}:${el.pluralType === 'ordinal' ? 'selectordinal' : 'plural'}`);
          for (const o of Object.values(el.options)) visit(o.value);
          break;
        case TYPE.tag:
          found.add(`${el.value}:tag`);
          visit(el.children);
          break;
        default:
          break;
      }
    }
  };
  visit(parse(message));
  return [...found].sort();
}

/** The plural categories a message's plurals use, by argument (to check each has `other`). */
export function pluralOptions(message: string): string[][] {
  const out: string[][] = [];
  const visit = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if (el.type === TYPE.plural) out.push(Object.keys(el.options));
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const o of Object.values(el.options)) visit(o.value);
      if (el.type === TYPE.tag) visit(el.children);
    }
  };
  visit(parse(message));
  return out;
}

const PSEUDO: Record<string, string> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((c, i) => [c, [...'àƀçđéƒĝĥîĵķĺɱñöþǫŕšŧûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĹṀÑÖÞǪŔŠŦÛṼŴẊÝŽ'][i]]),
);

/** One message in the pseudo-locale: every letter of its text accented (arguments, tags and plural `#` untouched). */
export function pseudoMessage(message: string): string {
  const ast = parse(message);
  const visit = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if (el.type === TYPE.literal) el.value = el.value.replace(/[A-Za-z]/g, (c) => PSEUDO[c]);
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const o of Object.values(el.options)) visit(o.value);
      if (el.type === TYPE.tag) visit(el.children);
    }
  };
  visit(ast);
  return printAST(ast);
}

/** A whole catalogue tree in the pseudo-locale. */
export function pseudoTree<T>(tree: T): T {
  if (typeof tree === 'string') return pseudoMessage(tree) as T;
  return Object.fromEntries(Object.entries(tree as Tree).map(([k, v]) => [k, pseudoTree(v)])) as T;
}

/** Source files (.ts, .tsx) under the given folders of the repository. */
export function sourceFiles(dirs: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(full);
    }
  };
  for (const d of dirs) if (fs.existsSync(path.join(ROOT, d))) walk(path.join(ROOT, d));
  return out;
}

/**
 * The keys source texts use: in each file, every string literal passed to a call
 * (`t('pick')`, `t.rich('chosen', ...)`) counts under every namespace the file asks for
 * (`useTranslations('flow')`, `getTranslations('meta')`, `useTranslations<'duration'>`).
 */
export function usedKeys(texts: string[]): Set<string> {
  const used = new Set<string>();
  for (const text of texts) {
    const namespaces = [...text.matchAll(/Translations(?:<|\()\s*'([\w.]+)'/g)].map((m) => m[1]);
    const keys = [...text.matchAll(/\b\w+(?:\.rich)?\(\s*'([\w.]+)'/g)].map((m) => m[1]);
    for (const ns of namespaces) for (const k of keys) used.add(`${ns}.${k}`);
  }
  return used;
}
