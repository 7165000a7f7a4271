'use client';

import { useState } from 'react';
import { Check, Copy, TriangleAlert } from 'lucide-react';
import { Alert, Button, Dialog, DialogContent } from '@/components/ui';

/** A secret shown exactly once (API key, requester credential): a warning, the value and a copy button. */
export function SecretOnceDialog({ title, secret, warning, onClose, testId = 'minted-secret' }: { title: string; secret: string | null; warning: string; onClose: () => void; testId?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Dialog
      open={secret !== null}
      onOpenChange={(o) => {
        if (!o) {
          setCopied(false);
          onClose();
        }
      }}
    >
      <DialogContent title={title} description="Copy it now: it is shown only this once and cannot be retrieved later.">
        <Alert tone="warn" className="mb-3">
          <TriangleAlert aria-hidden />
          {warning}
        </Alert>
        <div className="flex items-center gap-2">
          <code className="min-w-0 flex-1 break-all rounded-md border border-line bg-surface-2 px-3 py-2 text-sm" data-testid={testId}>
            {secret}
          </code>
          <Button
            variant="secondary"
            onClick={async () => {
              if (secret) await navigator.clipboard?.writeText(secret).catch(() => undefined);
              setCopied(true);
            }}
          >
            {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
            {copied ? 'Copied' : 'Copy'}
          </Button>
        </div>
      </DialogContent>
    </Dialog>
  );
}
