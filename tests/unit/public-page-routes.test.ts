import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RESERVED_ALIASES, validateAlias } from '@/server/domain/publicScheduling/admin/validation';

/**
 * Public booking pages live at `/{alias}` (app/(public-pages)/[alias]). A
 * fixed top-level route (or a file in public/) with a name an administrator
 * could choose as an alias would hide that link's page, so every such name
 * must be a reserved alias or impossible as one.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function topLevelSegments(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory()) continue;
    if (/^\(.*\)$/.test(e.name)) out.push(...topLevelSegments(path.join(dir, e.name))); // route group: no path segment
    else if (!e.name.startsWith('[') && !e.name.startsWith('_') && !e.name.startsWith('@')) out.push(e.name);
  }
  return out;
}

function acceptedAsAlias(name: string): boolean {
  try {
    validateAlias(name);
    return true;
  } catch {
    return false;
  }
}

describe('public page addresses', () => {
  it('no app route or public file takes a name that could be a link alias', () => {
    const app = topLevelSegments(path.join(ROOT, 'app'));
    expect(app).toEqual(expect.arrayContaining(['api', 'public', 'v1', 'dashboard', 'signin', 'status']));
    const files = fs.existsSync(path.join(ROOT, 'public')) ? fs.readdirSync(path.join(ROOT, 'public')) : [];
    const clashes = [...app, ...files].filter((name) => acceptedAsAlias(name));
    expect(clashes).toEqual([]);
    expect(RESERVED_ALIASES.has('status')).toBe(true); // the status page's own address (/status/{token})
  });
});
