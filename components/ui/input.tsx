'use client';

import type { ComponentProps } from 'react';
import { useFieldControl } from './field-context';
import { cn } from './cn';
import { controlClasses } from './control-classes';


export function Input({ className, ...props }: ComponentProps<'input'>) {
  const field = useFieldControl();
  return <input className={cn(controlClasses, 'h-10', className)} {...field} {...props} />;
}

export function Textarea({ className, ...props }: ComponentProps<'textarea'>) {
  const field = useFieldControl();
  return <textarea className={cn(controlClasses, 'min-h-20 py-2', className)} {...field} {...props} />;
}
