'use client';

import { useRouter } from 'next/navigation';
import type { ComponentProps, MouseEvent } from 'react';

/**
 * A container whose links to this site navigate client-side without
 * scrolling (as next/link with scroll={false}), by one click handler on the
 * container instead of a next/link per link: the week view has hundreds of
 * them (docs/benchmarks/history/2026-11-25-browser-pages.md). Before hydration, and
 * with a modifier key or another button, they are ordinary links.
 */
export function SoftLinks(props: ComponentProps<'div'>) {
  const router = useRouter();
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const a = (e.target as Element).closest<HTMLAnchorElement>('a[href]');
    if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const url = new URL(a.href);
    if (url.origin !== window.location.origin || a.target || a.hasAttribute('download')) return;
    e.preventDefault();
    router.push(url.pathname + url.search, { scroll: false });
  };
  return <div {...props} onClick={onClick} />;
}
