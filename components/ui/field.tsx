'use client';

import { useId, type ReactNode } from 'react';
import { FieldContext, type FieldIds } from './field-context';
import { Label } from './label';
import { cn } from './cn';

type FieldProps = {
  label: ReactNode;
  /** A message under the field (e.g. react-hook-form's `errors.x?.message`); marks the control invalid. */
  error?: string;
  hint?: ReactNode;
  className?: string;
  children: ReactNode;
};

/** A labelled form control with an optional hint and an inline error under it. */
export function Field({ label, error, hint, className, children }: FieldProps) {
  const id = useId();
  const ids: FieldIds = { id, hintId: hint ? `${id}-hint` : undefined, errorId: error ? `${id}-error` : undefined, invalid: !!error };
  return (
    <FieldContext.Provider value={ids}>
      <div className={cn('flex flex-col gap-1.5', className)}>
        <Label htmlFor={id}>{label}</Label>
        {children}
        {hint && (
          <p id={ids.hintId} className="text-xs text-muted">
            {hint}
          </p>
        )}
        {error && (
          <p id={ids.errorId} className="text-sm text-danger" role="alert">
            {error}
          </p>
        )}
      </div>
    </FieldContext.Provider>
  );
}
