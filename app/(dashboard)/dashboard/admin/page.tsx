import { redirect } from 'next/navigation';

/** The console opens on its first section. */
export default function AdminIndex() {
  redirect('/dashboard/admin/agents');
}
