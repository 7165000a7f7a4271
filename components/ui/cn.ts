/** Join class names, skipping falsy ones (components append the caller's `className` last). */
export function cn(...parts: Array<string | false | null | undefined>): string {
  return parts.filter(Boolean).join(' ');
}
