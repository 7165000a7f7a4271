'use client';

import type { ComponentProps } from 'react';
import { useFieldControl } from './field-context';
import { controlClasses } from './control-classes';
import { cn } from './cn';

/**
 * The one select (docs/dashboard.md "UI foundation"): a native <select>.
 * The browser gives it keyboard use, type-ahead, screen-reader semantics
 * (role combobox) and the phone's own picker; it works with react-hook-form's
 * `register`, with plain GET forms (FormData) and with hundreds of options
 * (time zones), and adds no JavaScript to the public pages' first load.
 * Inside a Field it takes the field's label, hint and error wiring.
 * `placeholder` is a first, unselectable empty option ("Choose an owner").
 */
export function Select({ className, placeholder, children, ...props }: ComponentProps<'select'> & { placeholder?: string }) {
  const field = useFieldControl();
  return (
    <select className={cn(controlClasses, 'h-10 px-2', className)} {...field} {...props}>
      {placeholder !== undefined && (
        <option value="" disabled>
          {placeholder}
        </option>
      )}
      {children}
    </select>
  );
}
