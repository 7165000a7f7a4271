import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { ArrowLeft } from 'lucide-react';
import { WebhooksConsole } from '@/components/admin/webhooks-console';
import { PageHeader } from '@/components/ui';
import { serverTrpc } from '@/server/trpc/caller';

export const metadata: Metadata = { title: 'Webhooks · Agent Scheduler' };

/** One agent's webhook endpoints and their delivery logs: admin.agents.list, admin.webhooks.list, admin.webhooks.deliveries. */
export default async function AgentWebhooksPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const trpc = await serverTrpc();
  const { agents } = await trpc.admin.agents.list();
  const agent = agents.find((a) => a.agent_id === id);
  if (!agent) notFound();
  const { webhooks } = await trpc.admin.webhooks.list({ agent_id: agent.agent_id });
  const logs = await Promise.all(webhooks.map(async (w) => [w.id, (await trpc.admin.webhooks.deliveries({ agent_id: agent.agent_id, webhook_id: w.id })).deliveries] as const));
  return (
    <>
      <Link href="/dashboard/admin/agents" className="mb-3 inline-flex items-center gap-1 text-sm">
        <ArrowLeft className="size-4" aria-hidden /> Agents and keys
      </Link>
      <PageHeader
        title={`Webhooks of ${agent.name}`}
        description="Where this agent's events are POSTed, signed with each endpoint's secret (the same endpoints the agent manages on /v1/webhooks)."
      />
      <WebhooksConsole agentId={agent.agent_id} agentName={agent.name} webhooks={webhooks} deliveries={Object.fromEntries(logs)} />
    </>
  );
}
