'use client';

import { createContext, useContext, useEffect, useRef, useState, useTransition, type CSSProperties, type ReactNode } from 'react';
import { useRouter } from 'next/navigation';
import { useMutation } from '@tanstack/react-query';
import { X } from 'lucide-react';
import { useTRPC } from '@/components/trpc-provider';
import { Dialog, DialogContent } from '@/components/ui';
import { firstClause, readServerError } from '@/components/ui/server-error';
import { formatClockSpan, formatSlot } from '@/components/ui/time-format';
import { BumpWarning, type Displaced } from './bump-warning';
import { MOVE_KEYS_ID, clampLength, clampStart, draftOf, instantsOf, moveTo, resizeTo, shiftDay, step, unchanged, type Draft } from './drag-math';

const DRAG_THRESHOLD_PX = 5;

type Refused = { date: string; min: number; dur: number; message: string };
type Shared = { draft: Draft | null; saving: boolean; refused: Refused | null; dismiss: () => void; timeZone: string; first: number; last: number; hourPx: number };
const DragState = createContext<Shared | null>(null);

type Props = { timeZone: string; dates: string[]; first: number; last: number; hourPx: number; children: ReactNode };

/**
 * Moving and resizing bookings on the week (docs/dashboard.md "Moving on the week"): a
 * confirmed booking's block is dragged with a mouse, a pen or a finger (Pointer Events), by its
 * body to move it (across days) or by its bottom edge to change its length, snapping to 15
 * minutes; or, focused, moved with Alt+arrows (Shift+Alt+Up/Down for its length), Enter to
 * move it there, Escape to put it back, each step told by a live region. Dropping asks
 * calendar.move, the Move dialog's procedure; the component decides nothing: a move that would
 * bump meetings shows the Move dialog's warning (BumpWarning) in a dialog that stays in view,
 * a refusal puts the block back and says why beside it.
 */
export function WeekDrag({ timeZone, dates, first, last, hourPx, children }: Props) {
  const trpc = useTRPC();
  const router = useRouter();
  const move = useMutation(trpc.calendar.move.mutationOptions());
  const [draft, setDraft] = useState<Draft | null>(null);
  const [saving, setSaving] = useState(false);
  const [bump, setBump] = useState<{ draft: Draft; displaced: Displaced[] } | null>(null);
  const [refused, setRefused] = useState<Refused | null>(null);
  const [said, setSaid] = useState('');
  const [, startTransition] = useTransition();
  const root = useRef<HTMLDivElement>(null);
  const busy = useRef(false); // a move is being sent or confirmed: focus leaving the block does not cancel it
  const swallowClickUntil = useRef(0); // the click that ends a drag does not open the booking
  const refocus = useRef<string | null>(null);

  const blockOf = (id: string) => root.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(id)}"]`) ?? null;
  // Kept on screen: the week shows first..last; a draft stays inside it.
  const inView = (d: Draft): Draft => ({ ...d, min: Math.max(first, Math.min(Math.max(first, last - d.dur), d.min)) });
  const slot = (d: Draft) => {
    const at = instantsOf(d, timeZone);
    return at ? formatSlot(at.start, at.end, timeZone) : '';
  };

  // The block being moved fades where it is (its ghost shows where it goes).
  const draftId = draft?.id;
  useEffect(() => {
    const el = draftId ? root.current?.querySelector(`[data-id="${CSS.escape(draftId)}"]`) : null;
    el?.classList.add('dragging');
    return () => el?.classList.remove('dragging');
  }, [draftId]);
  // After a keyboard move the refreshed block (perhaps in another day's column) takes focus again.
  useEffect(() => {
    if (draft || !refocus.current) return;
    const el = root.current?.querySelector<HTMLElement>(`[data-id="${CSS.escape(refocus.current)}"]`);
    refocus.current = null;
    el?.focus({ preventScroll: true });
  }, [draft]);

  const putBack = (d: Draft | null, words = true) => {
    busy.current = false;
    setBump(null);
    setDraft(null);
    setSaving(false);
    if (d && words) setSaid(`“${d.title}” stays at ${formatClockSpan(d.from.start, d.from.end, timeZone)}.`);
  };

  const commit = async (d: Draft, confirm?: string[]) => {
    const at = instantsOf(d, timeZone);
    if (!at) return putBack(d);
    busy.current = true;
    setDraft(d);
    setSaving(true);
    setSaid(`Moving “${d.title}” to ${formatSlot(at.start, at.end, timeZone)}…`);
    try {
      await move.mutateAsync({ booking_id: d.id, start: at.start, end: at.end, ...(confirm ? { confirm_preemption: confirm } : {}) });
      setSaid(`Moved “${d.title}” to ${formatSlot(at.start, at.end, timeZone)}.`);
      if (document.activeElement === blockOf(d.id) || bump) refocus.current = d.id;
      // The ghost stays until the refreshed week draws the block at its new place.
      startTransition(() => {
        router.refresh();
        putBack(null);
      });
    } catch (err) {
      setSaving(false);
      const refusal = readServerError(err);
      if (refusal.code === 'PREEMPTION_NOT_CONFIRMED') {
        setSaid('');
        setBump({ draft: d, displaced: (refusal.extra.displaced as Displaced[] | undefined) ?? [] });
        return;
      }
      putBack(d, false);
      setSaid('');
      setRefused({ date: d.from.date, min: d.from.min, dur: d.from.dur, message: `Not moved: ${firstClause(refusal.message)}` });
    }
  };

  const draftFromBlock = (el: HTMLElement): Draft => {
    const [s, e] = (el.dataset.move ?? '').split('/').map((m) => new Date(Number(m) * 60_000).toISOString());
    const d = draftOf(el.dataset.id ?? '', el.querySelector('span')?.textContent ?? 'Booking', s, e, timeZone);
    return { ...d, look: [...el.classList].find((c) => /^mc-\d$/.test(c)) ?? 'mc-6' };
  };

  const onPointerDown = (e: React.PointerEvent) => {
    const el = (e.target as Element).closest<HTMLElement>('[data-move]');
    if (!el || e.button !== 0 || busy.current || draft) return;
    const resize = (e.target as Element).closest('[data-resize]') !== null;
    const base = draftFromBlock(el);
    const columns = [...(root.current?.querySelectorAll<HTMLElement>('[data-day]') ?? [])];
    const x0 = e.clientX;
    const y0 = e.clientY;
    let current = base;
    let active = false;
    const dayAt = (x: number) => {
      const rects = columns.map((c) => c.getBoundingClientRect());
      const i = rects.findIndex((r) => x >= r.left && x < r.right);
      if (i >= 0) return columns[i].dataset.day ?? base.date;
      return x < (rects[0]?.left ?? 0) ? dates[0] : dates[dates.length - 1];
    };
    const onMove = (ev: PointerEvent) => {
      if (ev.pointerId !== e.pointerId) return;
      const dy = ev.clientY - y0;
      if (!active && Math.hypot(ev.clientX - x0, dy) < DRAG_THRESHOLD_PX) return;
      if (!active) {
        active = true;
        setRefused(null);
      }
      ev.preventDefault();
      const minutes = (dy / hourPx) * 60;
      current = resize ? resizeTo(base, Math.min(last, base.min + base.dur + minutes)) : inView(moveTo(base, dayAt(ev.clientX), base.min + minutes));
      setDraft(current);
    };
    const stop = (ev: Event) => {
      if (ev instanceof PointerEvent && ev.pointerId !== e.pointerId) return;
      if (ev instanceof KeyboardEvent && ev.key !== 'Escape') return;
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', stop);
      window.removeEventListener('pointercancel', stop);
      window.removeEventListener('keydown', stop);
      if (!active) return;
      swallowClickUntil.current = performance.now() + 500;
      if (ev.type !== 'pointerup' || unchanged(current)) return putBack(current);
      void commit(current);
    };
    window.addEventListener('pointermove', onMove, { passive: false });
    window.addEventListener('pointerup', stop);
    window.addEventListener('pointercancel', stop);
    window.addEventListener('keydown', stop);
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    const el = e.target as HTMLElement;
    if (!el.dataset?.move || busy.current) return;
    const current = draft?.id === el.dataset.id ? draft : null;
    if (current && e.key === 'Enter') {
      e.preventDefault(); // not the link's click
      if (unchanged(current)) putBack(current);
      else void commit(current);
      return;
    }
    if (current && e.key === 'Escape') {
      e.preventDefault();
      return putBack(current);
    }
    if (!e.altKey || e.ctrlKey || e.metaKey) return;
    const base = current ?? draftFromBlock(el);
    const dir = e.key === 'ArrowUp' || e.key === 'ArrowLeft' ? -1 : 1;
    let next: Draft | null = null;
    if (e.shiftKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) next = { ...base, dur: clampLength(base.min, Math.min(last, step(base.min + base.dur, dir)) - base.min) };
    else if (!e.shiftKey && (e.key === 'ArrowUp' || e.key === 'ArrowDown')) next = inView({ ...base, min: clampStart(step(base.min, dir), base.dur) });
    else if (!e.shiftKey && (e.key === 'ArrowLeft' || e.key === 'ArrowRight')) next = shiftDay(base, dates, dir);
    if (!next) return;
    e.preventDefault(); // not the browser's Back or Forward
    setRefused(null);
    setDraft(next);
    setSaid(`${next.title}: ${slot(next)}. Enter to move it there, Escape to keep ${formatClockSpan(next.from.start, next.from.end, timeZone)}.`);
  };

  const onBlur = (e: React.FocusEvent) => {
    const el = e.target as HTMLElement;
    if (draft && !busy.current && el.dataset?.id === draft.id) putBack(draft);
  };

  const onClickCapture = (e: React.MouseEvent) => {
    // A pointer's click right after a drag (a key's click has detail 0 and is never swallowed).
    if (e.detail === 0 || performance.now() > swallowClickUntil.current) return;
    swallowClickUntil.current = 0;
    e.preventDefault();
    e.stopPropagation();
  };

  const shared: Shared = { draft, saving, refused, dismiss: () => setRefused(null), timeZone, first, last, hourPx };
  const bumpSlot = bump ? slot(bump.draft) : '';
  return (
    <DragState.Provider value={shared}>
      <div ref={root} onPointerDown={onPointerDown} onKeyDown={onKeyDown} onBlur={onBlur} onClickCapture={onClickCapture}>
        {children}
      </div>
      <p id={MOVE_KEYS_ID} hidden>
        Drag to move, drag the bottom edge to change the length. Keys: Alt and the arrow keys move it by 15 minutes or a day, Shift, Alt and up or down change its length by 15 minutes, Enter moves it there, Escape keeps it.
      </p>
      <p className="sr-only" role="status" aria-live="polite" data-testid="week-move-status">
        {said}
      </p>
      <Dialog open={bump !== null} onOpenChange={(open) => !open && putBack(bump?.draft ?? null)}>
        {bump && (
          <DialogContent title={`Move “${bump.draft.title}” to ${bumpSlot}?`} description="Same booking. Its agent and attendees are told the new time.">
            <BumpWarning
              displaced={bump.displaced}
              timeZone={timeZone}
              pending={saving}
              onConfirm={() => void commit(bump.draft, bump.displaced.map((d) => d.id))}
              onBack={() => putBack(bump.draft)}
              backLabel="Keep the time"
            />
          </DialogContent>
        )}
      </Dialog>
    </DragState.Provider>
  );
}

/**
 * A day column's share of a move: the ghost of the booking where it would go (its new time
 * written on it) and, after a refusal, the reason beside the block that stayed. Rendered in each
 * column by the server's grid; only these seven re-render while a block moves.
 */
export function DayDraft({ date }: { date: string }) {
  const s = useContext(DragState);
  if (!s) return null;
  const y = (m: number) => ((m - s.first) / 60) * s.hourPx;
  const { draft, refused } = s;
  const at = draft && draft.date === date ? instantsOf(draft, s.timeZone) : null;
  return (
    <>
      {draft && at && (
        <div className={`week-event week-ghost ${draft.look ?? 'mc-6'}`} style={{ top: y(draft.min), height: Math.max(18, y(draft.min + draft.dur) - y(draft.min) - 1) }} aria-hidden data-testid="week-ghost">
          <span style={{ '--title-lines': Math.max(1, Math.floor((draft.dur * s.hourPx) / 60 / 13) - 1) } as CSSProperties}>{draft.title}</span>
          <span>
            {formatClockSpan(at.start, at.end, s.timeZone)}
            {s.saving ? ' · moving…' : ''}
          </span>
        </div>
      )}
      {refused && refused.date === date && (
        // Under the block, or above it when the block ends in the week's last hour.
        <div role="alert" className="week-refused" style={refused.min + refused.dur > s.last - 60 ? { bottom: y(s.last) - y(refused.min) + 2 } : { top: y(refused.min + refused.dur) + 2 }}>
          <span>{refused.message}</span>
          <button type="button" onClick={s.dismiss} aria-label="Dismiss" className="shrink-0 rounded p-0.5 hover:bg-surface-2">
            <X className="size-3.5" aria-hidden />
          </button>
        </div>
      )}
    </>
  );
}
