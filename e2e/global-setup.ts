import { startSmtp } from '../tests/helpers/smtp';
import { writeMail } from './mailbox';

/** Starts the run's SMTP server (see e2e/mailbox.ts); the returned function stops it after the run. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const smtp = await startSmtp({ port: Number(process.env.E2E_SMTP_PORT), onMessage: writeMail });
  return () => smtp.close();
}
