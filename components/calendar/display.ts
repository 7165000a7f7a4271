/** The week's display helpers that are not dates (dates and times: components/ui/time-format.ts). */

/** "1 h", "1.5 h" (a duration in the week's day totals). */
export function formatHours(minutes: number): string {
  const h = minutes / 60;
  return Number.isInteger(h) ? `${h} h` : `${h.toFixed(1)} h`;
}

/** One of eight colour pairs (globals.css .mc-0 ... .mc-7) for a meeting class, stable by name. */
export function classColour(name: string | null): string {
  if (!name) return 'mc-6';
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return `mc-${h % 8}`;
}
