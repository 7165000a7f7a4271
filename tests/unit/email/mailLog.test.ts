import { describe, expect, it } from 'vitest';
import { mailLinksLogged, mailSetupNotice } from '@/server/domain/email/mailer';

/** Without SMTP_URL, mail goes to the log; production withholds its live links unless MAIL_LOG_LINKS=1 (docs/operations.md "Mail"). */
describe('mail to the log', () => {
  const dev = { smtpUrl: undefined, production: false, mailLogLinks: false };
  const prod = { ...dev, production: true };

  it('prints links in development, and in production only with MAIL_LOG_LINKS=1', () => {
    expect(mailLinksLogged(dev)).toBe(true);
    expect(mailLinksLogged(prod)).toBe(false);
    expect(mailLinksLogged({ ...prod, mailLogLinks: true })).toBe(true);
  });

  it('says at start where mail goes and whether links are logged', () => {
    expect(mailSetupNotice({ ...prod, smtpUrl: 'smtp://mail.example:587' })).toEqual({ level: 'info', msg: expect.stringContaining('SMTP') });
    expect(mailSetupNotice(dev)).toEqual({ level: 'info', msg: expect.stringContaining('links included') });
    expect(mailSetupNotice(prod)).toEqual({ level: 'warn', msg: expect.stringContaining('links are withheld') });
    expect(mailSetupNotice({ ...prod, mailLogLinks: true })).toEqual({ level: 'warn', msg: expect.stringContaining('WITH their live links (MAIL_LOG_LINKS=1)') });
  });
});
