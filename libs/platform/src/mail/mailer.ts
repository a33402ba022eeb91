import { createTransport } from 'nodemailer';

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail, or nothing when no transport is configured. */
export interface Mailer {
  readonly configured: boolean;
  send(mail: OutgoingMail): Promise<void>;
}

/**
 * A mailer over SMTP (`smtp://user:pass@host:port`, `smtps://…`) from
 * `from`; with an empty URL, one that sends nothing (`configured` false).
 * Sends time out after 10 s, so a mail server that hangs never holds a request.
 */
export function createMailer(smtpUrl: string, from: string): Mailer {
  if (smtpUrl === '') return { configured: false, send: () => Promise.resolve() };
  const transport = createTransport(smtpUrl, { from });
  for (const key of ['connectionTimeout', 'greetingTimeout', 'socketTimeout'] as const) {
    (transport.options as Record<string, unknown>)[key] = 10_000;
  }
  return {
    configured: true,
    send: async (mail) => {
      await transport.sendMail(mail);
    },
  };
}
