import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '@/server/db';
import { verificationTokens } from '@/db/schema';
import { eq } from 'drizzle-orm';
import { ownerAdapter } from '@/server/auth/ownerAdapter';
import { sendSignInLink } from '@/server/auth/signInLink';
import { closeMailer } from '@/server/domain/email';
import { setOwnerPassword } from '@/server/domain/passwords';
import { newCustomer, uniqueEmail, type TestCustomer } from '../../helpers/app';
import { linksIn, startSmtp, type TestSmtp } from '../../helpers/smtp';
import { call } from '../scheduling/fixtures';

let admin: TestCustomer;
let smtp: TestSmtp;
beforeAll(async () => {
  admin = await newCustomer();
  smtp = await startSmtp();
  process.env.SMTP_URL = smtp.url;
});
afterAll(async () => {
  delete process.env.SMTP_URL;
  closeMailer();
  await smtp.close();
});

async function owner(withPassword: boolean): Promise<string> {
  const email = uniqueEmail('signin');
  expect((await call('POST', '/v1/owners', { key: admin.key, body: { email, time_zone: 'UTC' } })).status).toBe(201);
  if (withPassword) await setOwnerPassword(await getDb(), admin.customerId, email, 'a long enough password');
  return email;
}

describe('sign-in links (Auth.js adapter over owners)', () => {
  it('knows owners with dashboard access by email and id, and never creates a user', async () => {
    const adapter = ownerAdapter();
    const email = await owner(true);
    const user = await adapter.getUserByEmail!(email.toUpperCase());
    expect(user).toMatchObject({ email });
    expect(await adapter.getUser!(user!.id)).toMatchObject({ id: user!.id, email });
    expect(await adapter.getUserByEmail!(await owner(false))).toBeNull();
    expect(await adapter.getUserByEmail!(uniqueEmail('nobody'))).toBeNull();
    await expect(adapter.createUser!({ id: 'x', email: 'new@example.com', emailVerified: null })).rejects.toThrow(/existing owners/);
  });

  it('a token works once', async () => {
    const adapter = ownerAdapter();
    const identifier = await owner(true);
    const expires = new Date(Date.now() + 60_000);
    await adapter.createVerificationToken!({ identifier, token: 'hashed-token-1', expires });
    expect(await adapter.useVerificationToken!({ identifier, token: 'hashed-token-1' })).toEqual({ identifier, token: 'hashed-token-1', expires });
    expect(await adapter.useVerificationToken!({ identifier, token: 'hashed-token-1' })).toBeNull();
    expect(await adapter.useVerificationToken!({ identifier: 'other@example.com', token: 'hashed-token-1' })).toBeNull();
  });

  it("a new token clears the identifier's expired ones", async () => {
    const adapter = ownerAdapter();
    const identifier = await owner(true);
    await adapter.createVerificationToken!({ identifier, token: 'old', expires: new Date(Date.now() - 1000) });
    await adapter.createVerificationToken!({ identifier, token: 'new', expires: new Date(Date.now() + 60_000) });
    const rows = await (await getDb()).select().from(verificationTokens).where(eq(verificationTokens.identifier, identifier));
    expect(rows.map((r) => r.token)).toEqual(['new']);
  });

  it('mails the link over SMTP to an owner, and nothing to an address that is no owner with dashboard access', async () => {
    const email = await owner(true);
    await sendSignInLink(email, 'http://scheduler.test/api/auth/callback/email?token=abc&email=x');
    const mail = await smtp.waitFor(email, { subject: /sign-in link/ });
    expect(linksIn(mail)).toEqual(['http://scheduler.test/api/auth/callback/email?token=abc&email=x']);
    expect(mail.text).toContain('works once, within 15 minutes');

    const noAccess = await owner(false);
    await sendSignInLink(noAccess, 'http://scheduler.test/x');
    await sendSignInLink(uniqueEmail('stranger'), 'http://scheduler.test/x');
    expect(smtp.messages.filter((m) => m.to.includes(noAccess))).toEqual([]);
    expect(smtp.messages).toHaveLength(1);
  });

  it('fails when the mail cannot be delivered (queueSignInLink logs it; the answer was given before)', async () => {
    const email = await owner(true);
    process.env.SMTP_URL = 'smtp://127.0.0.1:1';
    try {
      await expect(sendSignInLink(email, 'http://scheduler.test/x')).rejects.toThrow(/could not be sent/);
    } finally {
      process.env.SMTP_URL = smtp.url;
    }
  });
});
