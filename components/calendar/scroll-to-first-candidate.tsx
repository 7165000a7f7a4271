'use client';

import { useEffect } from 'react';

/**
 * On a narrow screen the week scrolls sideways: bring the first candidate's
 * day into view (the page stays where it is).
 */
export function ScrollToFirstCandidate() {
  useEffect(() => {
    const overlay = document.querySelector<HTMLElement>('[data-testid="candidate-overlay-1"]');
    const region = overlay?.closest<HTMLElement>('[role="region"]');
    if (!overlay || !region || region.scrollWidth <= region.clientWidth) return;
    const column = overlay.parentElement ?? overlay;
    const offset = column.getBoundingClientRect().left - region.getBoundingClientRect().left + region.scrollLeft;
    region.scrollLeft = Math.max(0, offset - 56); // keep the hour labels' width free
  }, []);
  return null;
}
