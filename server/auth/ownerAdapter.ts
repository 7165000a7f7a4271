import type { Adapter, AdapterUser } from 'next-auth/adapters';
import { getDb } from '@/db/client';
import { consumeSignInToken, ownerForSignInEmail, ownerForSignInId, storeSignInToken } from '@/server/domain/signInLinks';
import type { SignedInOwner } from '@/server/domain/passwords';

function asUser(o: SignedInOwner): AdapterUser {
  return { id: o.ownerId, email: o.email, emailVerified: null };
}

/**
 * The Auth.js adapter behind "email me a sign-in link": users are our
 * owners (never a second user table), verification tokens live in
 * `verification_tokens`. Sessions stay JWT cookies, so no session or account
 * methods; an unknown email never becomes a user (createUser refuses, and the
 * signIn callback refuses first).
 */
export function ownerAdapter(): Adapter {
  return {
    async getUser(id) {
      const o = await ownerForSignInId(await getDb(), id);
      return o ? asUser(o) : null;
    },
    async getUserByEmail(email) {
      const o = await ownerForSignInEmail(await getDb(), email);
      return o ? asUser(o) : null;
    },
    async updateUser(user) {
      // Auth.js records emailVerified after a link is used; owners have no such column.
      const o = await ownerForSignInId(await getDb(), user.id);
      if (!o) throw new Error('not an owner with dashboard access');
      return asUser(o);
    },
    async createUser() {
      throw new Error('sign-in links are for existing owners only');
    },
    async createVerificationToken(t) {
      await storeSignInToken(await getDb(), t, new Date());
      return t;
    },
    async useVerificationToken({ identifier, token }) {
      return consumeSignInToken(await getDb(), identifier, token);
    },
  };
}
