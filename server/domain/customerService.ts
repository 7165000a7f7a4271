import type { Executor } from '@/db/client';
import { customers, PERMISSIONS } from '@/db/schema';
import { createAgent, mintApiKey } from './agentService';
import { newId } from './ids';

export type Bootstrapped = { customer_id: string; agent_id: string; api_key: string };

/** A new customer with its first admin agent (`org:*`, every permission) and that agent's first key. */
export async function bootstrapCustomer(db: Executor, name: string, now: Date = new Date()): Promise<Bootstrapped> {
  return db.transaction(async (tx) => {
    const [customer] = await tx.insert(customers).values({ id: newId(), name }).returning();
    const agent = await createAgent(tx, customer.id, null, { name: `${name} admin`, owner_scope: 'org:*', permissions: [...PERMISSIONS] });
    const key = await mintApiKey(tx, customer.id, null, agent.id, 'bootstrap', now);
    return { customer_id: customer.id, agent_id: agent.id, api_key: key.api_key };
  });
}
