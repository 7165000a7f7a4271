'use client';

import { useId, useState } from 'react';
import { Input } from '@/components/ui';

/**
 * The hosts of a collective meeting type, picked from the customer's owners (docs/dashboard.md
 * "Public scheduling"): a filter box, then one checkbox per owner (Tab reaches the list, Space
 * ticks), the chosen ones first in the order ticked (the first one's clock lays out the times).
 */
export function HostPicker({ owners, value, onChange }: { owners: string[]; value: string[] | null; onChange: (v: string[] | null) => void }) {
  const [filter, setFilter] = useState('');
  const filterId = useId();
  const chosen = value ?? [];
  const needle = filter.trim().toLowerCase();
  const shown = [...chosen, ...owners.filter((o) => !chosen.includes(o))].filter((o) => !needle || o.toLowerCase().includes(needle));
  const toggle = (email: string, on: boolean) => {
    const next = on ? [...chosen, email] : chosen.filter((e) => e !== email);
    onChange(next.length ? next : null);
  };
  return (
    <div className="flex flex-col gap-2">
      <label htmlFor={filterId} className="sr-only">
        Find an owner
      </label>
      <Input id={filterId} type="search" placeholder="Find an owner" autoComplete="off" value={filter} onChange={(e) => setFilter(e.target.value)} />
      <ul className="flex max-h-48 flex-col gap-1 overflow-y-auto rounded-md border border-line p-2 text-sm" aria-label="Owners">
        {shown.map((email) => {
          const position = chosen.indexOf(email);
          return (
            <li key={email}>
              <label className="flex items-center gap-2">
                <input type="checkbox" className="size-4" checked={position >= 0} onChange={(e) => toggle(email, e.target.checked)} />
                <span className="break-all">{email}</span>
                {position === 0 && <span className="text-xs text-muted">(its clock lays out the times)</span>}
              </label>
            </li>
          );
        })}
        {!shown.length && <li className="text-muted">No owner matches.</li>}
      </ul>
      <p className="text-xs text-muted" aria-live="polite">
        {chosen.length} chosen{chosen.length ? `: ${chosen.join(', ')}` : ''}
      </p>
    </div>
  );
}
