import fs from 'node:fs';
import path from 'node:path';

/** A route file under app/, with its URL pattern (Next's app-router conventions). */
export type RouteFile = { file: string; segments: string[]; urlPattern: string };

const APP_DIR = path.resolve(__dirname, '../../app');

/** Every route.ts under app/ (the REST surface is app/v1 and app/public). */
export function listRouteFiles(root = APP_DIR): RouteFile[] {
  const out: RouteFile[] = [];
  const walk = (dir: string, segments: string[]) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(path.join(dir, entry.name), [...segments, entry.name]);
      else if (entry.name === 'route.ts') {
        const urlSegments = segments.filter((s) => !(s.startsWith('(') && s.endsWith(')')));
        out.push({ file: path.join(dir, entry.name), segments: urlSegments, urlPattern: '/' + urlSegments.join('/') });
      }
    }
  };
  walk(root, []);
  return out;
}

/** OpenAPI-style path of a route (`[id]` -> `{id}`); catch-alls have none. */
export function openApiPathOf(route: RouteFile): string | null {
  if (route.segments.some((s) => s.startsWith('[...'))) return null;
  return '/' + route.segments.map((s) => (s.startsWith('[') ? `{${s.slice(1, -1)}}` : s)).join('/');
}

type Match = { route: RouteFile; params: Record<string, string | string[]>; score: number[] };

/** Resolve a pathname as Next does: static segments beat dynamic ones, which beat catch-alls. */
export function matchRoute(routes: RouteFile[], pathname: string): { route: RouteFile; params: Record<string, string | string[]> } | null {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  let best: Match | null = null;
  for (const route of routes) {
    const params: Record<string, string | string[]> = {};
    const score: number[] = [];
    let ok = true;
    for (let i = 0; i < route.segments.length; i++) {
      const seg = route.segments[i];
      if (seg.startsWith('[...')) {
        const rest = parts.slice(i);
        if (!rest.length) ok = false;
        params[seg.slice(4, -1)] = rest;
        score.push(0);
        break;
      }
      if (i >= parts.length) {
        ok = false;
        break;
      }
      if (seg.startsWith('[')) {
        params[seg.slice(1, -1)] = parts[i];
        score.push(1);
      } else if (seg === parts[i]) score.push(2);
      else {
        ok = false;
        break;
      }
      if (i === route.segments.length - 1 && parts.length !== route.segments.length) ok = false;
    }
    if (!ok) continue;
    if (!best || compare(score, best.score) > 0) best = { route, params, score };
  }
  return best ? { route: best.route, params: best.params } : null;
}

function compare(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d) return d;
  }
  return 0;
}
