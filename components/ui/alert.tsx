import type { ComponentProps } from 'react';
import { cn } from './cn';

const TONES = {
  info: 'border-line bg-surface-2 text-fg',
  ok: 'border-transparent bg-ok-soft text-ok',
  warn: 'border-transparent bg-warn-soft text-warn',
  danger: 'border-transparent bg-danger-soft text-danger',
} as const;

/**
 * A message box; `danger` is announced at once (role=alert), the others politely (role=status).
 * A link inside reads as a link by its underline, in the box's own colour (a tinted link on a tinted
 * box fails contrast: axe `link-in-text-block`).
 */
export function Alert({ tone = 'info', className, ...props }: ComponentProps<'div'> & { tone?: keyof typeof TONES }) {
  return (
    <div
      role={tone === 'danger' ? 'alert' : 'status'}
      className={cn('rounded-md border px-3 py-2 text-sm [&_a]:font-medium [&_a]:text-current [&_a]:underline [&_svg]:me-1.5 [&_svg]:inline [&_svg]:size-4 [&_svg]:align-[-0.15em]', TONES[tone], className)}
      {...props}
    />
  );
}
