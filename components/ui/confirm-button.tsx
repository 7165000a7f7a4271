'use client';

import { useState, type ReactNode } from 'react';
import { Button, type ButtonProps } from './button';
import { Dialog, DialogClose, DialogContent, DialogTrigger } from './dialog';

/**
 * A destructive action that asks first: the button opens a dialog saying
 * what will happen; only its confirm button runs `onConfirm`.
 */
export function ConfirmButton({
  label,
  title,
  description,
  confirmLabel,
  onConfirm,
  variant = 'secondary',
  size = 'sm',
  children,
}: {
  label: string;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  variant?: ButtonProps['variant'];
  size?: ButtonProps['size'];
  children?: ReactNode;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return (
    <Dialog open={open} onOpenChange={(o) => (setOpen(o), setError(null))}>
      <DialogTrigger asChild>
        <Button variant={variant} size={size} aria-label={label}>
          {children ?? label}
        </Button>
      </DialogTrigger>
      <DialogContent title={title} description={description}>
        {error && (
          <p role="alert" className="mb-3 text-sm text-danger">
            {error}
          </p>
        )}
        <div className="flex justify-end gap-2">
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button
            variant="danger"
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              try {
                await onConfirm();
                setOpen(false);
              } catch (err) {
                setError((err as Error).message);
              } finally {
                setBusy(false);
              }
            }}
          >
            {confirmLabel}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
