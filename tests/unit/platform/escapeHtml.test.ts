import { describe, expect, it } from 'vitest';
import { escapeHtml } from '@/server/html';

describe('escapeHtml', () => {
  it('turns every character that could leave a text node or an attribute into a reference', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&\`=</a>`)).toBe('&#60;a href&#61;&#34;x&#34; onclick&#61;&#39;y&#39;&#62;&#38;&#96;&#61;&#60;/a&#62;');
  });
  it('leaves plain text as it is', () => {
    expect(escapeHtml('Ada Lovelace, 10:00 UTC')).toBe('Ada Lovelace, 10:00 UTC');
  });
});
