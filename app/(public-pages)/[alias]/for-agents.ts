import type { Metadata } from 'next';

/** `<link rel="alternate" type="text/plain">` to the link's page for agents (docs/public-scheduling.md "For agents"). */
export function forAgents(alias: string): Metadata['alternates'] {
  return { types: { 'text/plain': `/${encodeURIComponent(alias.toLowerCase())}/llms.txt` } };
}
