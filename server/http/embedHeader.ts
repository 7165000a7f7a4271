/**
 * The request header proxy.ts sets on an embeddable page's request: the verified domains that may
 * frame it, comma-separated (empty: only this origin). Absent on every other page; a client's own
 * copy is always dropped (docs/public-scheduling.md "Embedding").
 */
export const EMBED_DOMAINS_HEADER = 'x-scheduler-embed-domains';
