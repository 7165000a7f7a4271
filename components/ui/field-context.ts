'use client';

import { createContext, useContext } from 'react';

/**
 * What a Field tells the control inside it (a module of its own, without the
 * Label: the public pages' first-load Select imports it).
 */
export type FieldIds = { id: string; hintId?: string; errorId?: string; invalid: boolean };
export const FieldContext = createContext<FieldIds | null>(null);

/** The id and ARIA wiring a control inside a Field uses (Input, Textarea, Select read it). */
export function useFieldControl(): { id?: string; 'aria-invalid'?: true; 'aria-describedby'?: string } {
  const f = useContext(FieldContext);
  if (!f) return {};
  const describedBy = [f.errorId, f.hintId].filter(Boolean).join(' ') || undefined;
  return { id: f.id, ...(f.invalid ? { 'aria-invalid': true as const } : {}), 'aria-describedby': describedBy };
}
