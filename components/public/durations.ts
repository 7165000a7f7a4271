/** "30 minutes", "1 hour", "90 minutes". */
export function minutesLabel(m: number): string {
  if (m % 60 !== 0) return `${m} minutes`;
  const h = m / 60;
  return `${h} ${h === 1 ? 'hour' : 'hours'}`;
}

/** "30 minutes or 1 hour", "15, 30 or 45 minutes". */
export function minutesList(ms: number[]): string {
  const labels = ms.map(minutesLabel);
  if (labels.length === 1) return labels[0];
  return `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}`;
}
