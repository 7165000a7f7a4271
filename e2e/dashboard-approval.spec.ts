import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './test';
import { berlin, dashboardOwner, expectAccessible, signInWithPassword, snap } from './dashboard';
import { usesPostgres } from './servers';

/**
 * An owner's approval policy for agent writes (docs/dashboard.md "Approvals", docs/api.md
 * "Approval policies"): the owner requires approval for an agent in the dashboard, the agent's
 * booking answers 202 pending_approval, the owner approves it from the inbox, and the agent's
 * webhook receiver (on loopback) gets booking.approved.
 */
test.describe('journey: an agent books, the owner approves in the dashboard', () => {
  test.skip(!usesPostgres, 'needs E2E_DATABASE_URL: the CLI sets the password on the database the server uses');
  test.setTimeout(150_000);

  test("the agent's booking waits in the inbox; the owner approves; the agent's webhook gets booking.approved", async ({ page }, info) => {
    const received: { type: string; data: Record<string, unknown> }[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const owner = await dashboardOwner(page.request, 'approval');
      const agent = await owner.api('POST', '/v1/agents', { name: 'Travel assistant', owner_scope: 'org:*', permissions: ['read_availability', 'create_holds', 'create_bookings'] });
      const { api_key: agentKey } = await owner.api('POST', `/v1/agents/${agent.agent_id}/keys`, {});
      const asAgent = async (method: 'GET' | 'POST', path: string, data?: unknown) => {
        const res = await page.request.fetch(`${owner.base}${path}`, { method, headers: { Authorization: `Bearer ${agentKey}` }, data });
        return { status: res.status(), body: await res.json() };
      };
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/agent`;
      const hook = await asAgent('POST', '/v1/webhooks', { url, events: ['booking.approved', 'booking.declined', 'booking.created'] });
      expect(hook.status, JSON.stringify(hook.body)).toBe(201);

      // The owner requires approval for this agent, in the dashboard.
      await signInWithPassword(page, owner);
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Approvals' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Approvals' })).toBeVisible();
      await page.getByLabel('Agent').selectOption({ label: 'Travel assistant' });
      await page.getByRole('button', { name: 'Require approval' }).click();
      await expect(page.getByTestId('approval-rule')).toHaveText(/Travel assistant, every meeting/);
      await expectAccessible(page, 'approval rules');
      await snap(page, info, '01-approval-rules');

      // The agent books: held for approval.
      const start = berlin(3, '15:00');
      const end = berlin(3, '15:30');
      const booked = await asAgent('POST', '/v1/bookings', { owner_email: owner.email, meeting_class: 'external', start, end, title: 'Flight debrief', attendees: [{ email: 'pilot@air.example' }] });
      expect(booked.status, JSON.stringify(booked.body)).toBe(202);
      expect(booked.body).toMatchObject({ status: 'pending_approval', start, end });

      // The owner approves it from the inbox.
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Inbox' }).click();
      await page.getByRole('link', { name: /Review on your week\s*: Flight debrief/ }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Flight debrief' })).toBeVisible();
      await expect(page.getByTestId('held-badge')).toBeVisible();
      await expectAccessible(page, 'held request');
      await snap(page, info, '02-held-request');
      await page.getByRole('button', { name: 'Approve' }).click();
      await expect(page.getByTestId('review-outcome')).toContainText('Approved and booked. The agent has been told.');
      await snap(page, info, '03-approved');

      const proposal = await asAgent('GET', `/v1/booking-proposals/${booked.body.proposal_id}`);
      expect(proposal.body).toMatchObject({ status: 'booked', booking_id: expect.any(String) });
      // The agent's receiver gets booking.approved (the worker is woken on commit).
      await expect.poll(() => received.find((e) => e.type === 'booking.approved')?.data, { timeout: 30_000 }).toMatchObject({
        proposal_id: booked.body.proposal_id,
        booking_id: proposal.body.booking_id,
        hold_id: booked.body.hold_id,
        approved_by: { email: owner.email },
      });
      expect((await asAgent('GET', `/v1/bookings/${proposal.body.booking_id}`)).body).toMatchObject({ status: 'confirmed', start, end, title: 'Flight debrief' });
    } finally {
      await new Promise<void>((r) => receiver.close(() => r()));
    }
  });
});
