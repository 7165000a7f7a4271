'use client';

import { lazy } from 'react';
import { onDemand } from './on-demand';

/** The "Ask to move" form loads on the click that opens it, not with the status page (docs/benchmarks.md "Browser pages"). */
export const LazyMoveForm = onDemand(lazy(() => import('./move-request-form').then((m) => ({ default: m.MoveRequestForm }))));
