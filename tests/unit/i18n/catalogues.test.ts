import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOCALES } from '@/i18n/locales';
import { flatCatalogue, icuSignature, MESSAGES, pluralOptions, pseudoMessage, sourceFiles, usedKeys } from './catalogue';

/**
 * The catalogues (messages/<locale>/*.json; docs/public-scheduling.md "Languages"): every
 * language has exactly English's keys, every message takes English's ICU arguments, every
 * plural has `other`, and every key is used by the code. The requester pages' catalogue
 * (public.json) and their mails' (mail.json) alike.
 */
const en = flatCatalogue('en');

describe('message catalogues', () => {
  it('has one folder per supported language, and no other', () => {
    const folders = fs.readdirSync(MESSAGES, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort();
    expect(folders).toEqual([...LOCALES].sort());
  });

  it.each(LOCALES.filter((l) => l !== 'en'))('%s has no missing and no extra key', (locale) => {
    const keys = [...flatCatalogue(locale).keys()];
    expect(keys.filter((k) => !en.has(k)), 'keys English does not have').toEqual([]);
    expect([...en.keys()].filter((k) => !keys.includes(k)), 'keys missing').toEqual([]);
  });

  it.each(LOCALES)('%s: every message parses and takes exactly the arguments of English', (locale) => {
    const wrong: string[] = [];
    for (const [key, message] of flatCatalogue(locale)) {
      const english = en.get(key);
      if (english === undefined) continue;
      const mine = icuSignature(message).join(', ');
      const theirs = icuSignature(english).join(', ');
      if (mine !== theirs) wrong.push(`${key}: ${mine} (English: ${theirs})`);
      for (const options of pluralOptions(message)) if (!options.includes('other')) wrong.push(`${key}: a plural without "other"`);
      if (locale !== 'en' && message.trim() === '') wrong.push(`${key}: empty`);
    }
    expect(wrong).toEqual([]);
  });

  it('uses every key: each is named in a file that asks for its namespace', () => {
    const used = usedKeys(sourceFiles(['app', 'components', 'server', 'i18n']).map((f) => fs.readFileSync(f, 'utf8')));
    // The pages' (public.json) and the mails' (mail.json, i18n/mail.ts mailTranslations) keys alike.
    const unused = [...en.keys()].filter((k) => !used.has(k.replace(/^(?:public|mail)\.json:/, '')));
    expect(unused).toEqual([]);
  });

  it('checks what it claims: a changed argument, a lost plural category and an unused key are caught', () => {
    expect(icuSignature('Hallo {name}')).not.toEqual(icuSignature('Hello {owner}'));
    expect(icuSignature('{n, plural, one {# Tag} other {# Tage}}')).toEqual(icuSignature('{n, plural, one {# day} other {# days}}'));
    expect(icuSignature('{s, select, a {x} other {y}}')).not.toEqual(icuSignature('{s, select, b {x} other {y}}'));
    expect(() => pluralOptions('{n, plural, one {#}}')).toThrow();
    expect(pluralOptions('{n, plural, =1 {x} other {#}}')).toEqual([['=1', 'other']]);
    expect(pseudoMessage('Up to {max, plural, one {# person} other {# people}} <b>here</b>')).toBe('Ûþ ŧö {max,plural,one{# þéŕšöñ} other{# þéöþĺé}} <b>ĥéŕé</b>');
    const used = usedKeys(["const t = useTranslations('flow'); t('pick'); t.rich('chosen', {})", "getTranslations('meta'); t('title')"]);
    expect(['flow.chosen', 'flow.pick', 'meta.title'].filter((k) => !used.has(k))).toEqual([]);
    expect(used.has('flow.title') || used.has('meta.pick')).toBe(false);
  });
});
