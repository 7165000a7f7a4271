'use client';

import { signOut } from 'next-auth/react';
import { LogOut } from 'lucide-react';
import { Button } from '@/components/ui/button';

/** Ends the session (Auth.js clears the cookie) and returns to the sign-in page. */
export function SignOutButton() {
  return (
    <Button variant="ghost" size="sm" onClick={() => void signOut({ callbackUrl: '/signin' })}>
      <LogOut aria-hidden />
      Sign out
    </Button>
  );
}
