/**
 * Escaping text into the server's few hand-built HTML pages (the contact verification page,
 * the sign-in throttle page; docs/architecture.md "Layers"). Every character that could end a
 * text node or an attribute value becomes a numeric character reference.
 */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}
