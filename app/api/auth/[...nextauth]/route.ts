import NextAuth from 'next-auth';
import { authOptions } from '@/server/auth/nextAuth';

// Dashboard sign-in for calendar owners (Auth.js). Options are built per request so the secret is read at run time.
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(authOptions())(req, ctx);
}

export { handler as GET, handler as POST };
