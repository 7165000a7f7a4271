'use client';

import { lazy } from 'react';
import { onDemand } from './on-demand';

/** The cancel form (react-hook-form and zod) loads on the click that opens it, not with the status page (docs/benchmarks.md "Browser pages"). */
export const LazyCancelForm = onDemand(lazy(() => import('./cancel-meeting-form').then((m) => ({ default: m.CancelMeetingForm }))));
