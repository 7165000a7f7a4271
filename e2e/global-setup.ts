import { startMailbox } from './mailbox';

/** Starts the run's loopback SMTP server (see e2e/mailbox.ts); the returned function stops it. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const smtp = await startMailbox(Number(process.env.E2E_SMTP_PORT), process.env.E2E_MAIL_DIR!);
  return () => smtp.close();
}
