/** The calendar owner signed in to the dashboard (from the Auth.js session; see docs/architecture.md). */
export type OwnerSession = { ownerId: string; customerId: string; email: string; role: 'admin' | 'member'; /** The browser's session row (docs/dashboard.md "Sessions"); null for a cookie from before sessions had rows. */ sessionId?: string | null };
