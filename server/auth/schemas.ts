import { z } from 'zod';
import { Email } from '@/server/http/schemas/common';

/** What the sign-in page sends; the credentials provider validates with the same schema. */
export const PasswordSignIn = z.object({
  email: Email,
  password: z.string().min(1, 'Enter your password').max(1024),
});

/** "Email me a sign-in link". */
export const LinkSignIn = z.object({ email: Email });
