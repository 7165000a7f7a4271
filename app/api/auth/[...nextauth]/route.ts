import { authRoute } from '@/server/auth/route';

// Dashboard sign-in for calendar owners (Auth.js): callbackUrl sanitising and the sign-in throttle live in server/auth/route.ts.
export { authRoute as GET, authRoute as POST };
