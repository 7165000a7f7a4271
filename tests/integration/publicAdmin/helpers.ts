import { api, newCustomer, uniqueEmail, type ApiOptions, type ApiResponse, type TestCustomer } from '../../helpers/app';
import { newId } from '@/server/domain/ids';

/**
 * A client address per test file (module state is per file): the global
 * per-IP limit is shared through Redis on the PostgreSQL project.
 */
const FILE_IP = `10.${rnd()}.${rnd()}.${rnd()}`;
function rnd() {
  return Math.floor(Math.random() * 254) + 1;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field, as with api()
export function call<T = any>(method: string, path: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  return api<T>(method, path, { ip: FILE_IP, ...opts });
}

export const P = '/v1/public-scheduling';

/** A fresh customer with an owner and two meeting classes: `standard` (preempt_lower) and `guarded` (never). */
export async function setupCustomer(timeZone = 'UTC'): Promise<TestCustomer & { ownerEmail: string }> {
  const admin = await newCustomer();
  const ownerEmail = await addOwner(admin, timeZone);
  for (const c of [
    { name: 'standard', priority: 50 },
    { name: 'guarded', priority: 40, preempt_policy: 'never' },
  ]) {
    const res = await call('POST', '/v1/meeting-classes', { key: admin.key, body: c });
    if (res.status !== 201) throw new Error(res.text);
  }
  return { ...admin, ownerEmail };
}

export async function addOwner(admin: TestCustomer, timeZone = 'UTC'): Promise<string> {
  const email = uniqueEmail();
  const res = await call('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: timeZone } });
  if (res.status !== 201) throw new Error(res.text);
  return email;
}

/** A globally unique alias for this run. */
export function uniqueAlias(prefix = 'link'): string {
  return `${prefix}-${newId().slice(-12)}`;
}

/** A unique domain name for this run. */
export function uniqueDomain(prefix = 'corp'): string {
  return `${prefix}-${newId().slice(-12)}.example.com`;
}

export async function createLink(admin: TestCustomer, ownerEmail: string, alias = uniqueAlias()): Promise<{ link_id: string; alias: string }> {
  const res = await call('POST', `${P}/links`, { key: admin.key, body: { owner_email: ownerEmail, alias } });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}

export async function createType(admin: TestCustomer, linkId: string, body: Record<string, unknown> = {}) {
  const res = await call('POST', `${P}/links/${linkId}/meeting-types`, {
    key: admin.key,
    body: { slug: 'intro', title: 'Intro call', duration_minutes: [30], meeting_class: 'standard', ...body },
  });
  if (res.status !== 201) throw new Error(res.text);
  return res.body;
}
