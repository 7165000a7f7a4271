'use client';

import { RadioGroup as RadioGroupPrimitive } from 'radix-ui';
import type { ComponentProps, ReactNode } from 'react';
import { cn } from './cn';

/** Arrow keys move between options, Tab leaves the group (Radix roving focus). */
export function RadioGroup({ className, ...props }: ComponentProps<typeof RadioGroupPrimitive.Root>) {
  return <RadioGroupPrimitive.Root className={cn('flex flex-col gap-2', className)} {...props} />;
}

/** One option shown as a selectable card: the whole card is the radio's label. */
export function RadioCard({ value, children, className, ...props }: ComponentProps<typeof RadioGroupPrimitive.Item> & { children: ReactNode }) {
  return (
    <RadioGroupPrimitive.Item
      value={value}
      className={cn(
        'flex w-full items-center gap-3 rounded-md border border-line bg-surface px-3 py-2 text-left text-sm',
        'hover:bg-surface-2 data-[state=checked]:border-accent data-[state=checked]:bg-accent-soft',
        className,
      )}
      {...props}
    >
      <span aria-hidden className="flex size-4 shrink-0 items-center justify-center rounded-full border border-muted">
        <RadioGroupPrimitive.Indicator className="size-2 rounded-full bg-accent" />
      </span>
      <span className="flex-1">{children}</span>
    </RadioGroupPrimitive.Item>
  );
}
