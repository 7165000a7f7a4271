import { expect, it } from 'vitest';
import { createSchedulerClient, type components } from '@/clients/typescript/src/index';

/** The typed client covers group holds and bookings (docs/groups.md): owner_emails in, group_id and members out. */
it('sends owner_emails and reads group_id and members with the generated types', async () => {
  const sent: unknown[] = [];
  const hold: components['schemas']['Hold'] = {
    hold_id: 'h1',
    hold_scope: 'candidate',
    held_window: { start: '2030-01-07T10:00:00Z', end: '2030-01-07T10:30:00Z', start_local: '2030-01-07T10:00:00', end_local: '2030-01-07T10:30:00' },
    held_windows: [],
    start_local: '2030-01-07T10:00:00',
    end_local: '2030-01-07T10:30:00',
    duration_minutes: 30,
    expires_at: '2030-01-07T09:10:00Z',
    expires_in_seconds: 600,
    resolved_calendar_type: 'internal',
    owner_email: 'a@example.com',
    meeting_class: 'internal',
    status: 'active',
    booking_id: null,
    group_id: 'g1',
    members: [
      { owner_email: 'a@example.com', hold_id: 'h1', status: 'active' },
      { owner_email: 'b@example.com', hold_id: 'h2', status: 'active' },
    ],
  };
  const client = createSchedulerClient({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'ak_test',
    fetch: async (req) => {
      sent.push(await req.json());
      return new Response(JSON.stringify(hold), { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
  const { data } = await client.POST('/v1/holds', {
    body: { owner_emails: ['a@example.com', 'b@example.com'], meeting_class: 'internal', hold_scope: 'candidate', candidate: { start: '2030-01-07T10:00:00Z', end: '2030-01-07T10:30:00Z' } },
  });
  expect(sent[0]).toMatchObject({ owner_emails: ['a@example.com', 'b@example.com'] });
  expect(data?.members?.map((m) => m.hold_id)).toEqual(['h1', 'h2']);
  expect(data?.group_id).toBe('g1');
});
