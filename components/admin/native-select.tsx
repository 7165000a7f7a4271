'use client';

import type { ComponentProps } from 'react';
import { useFieldControl } from '@/components/ui';
import { cn } from '@/components/ui/cn';

/** A plain <select> that takes its Field's label, hint and error wiring (for short fixed lists and react-hook-form's register). */
export function NativeSelect({ className, ...props }: ComponentProps<'select'>) {
  const field = useFieldControl();
  return <select className={cn('h-10 w-full rounded-md border border-line bg-surface px-2 text-sm text-fg aria-[invalid=true]:border-danger', className)} {...field} {...props} />;
}
