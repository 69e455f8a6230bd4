// Outgoing email over SMTP (config `email`), with nodemailer: verification, password reset and
// member invitation links. One transport, made at start when `email` is configured; without
// it, there is no mailer and the features that need one say so. The SMTP URL holds a password:
// it is never logged. nodemailer is loaded with the first message, not at start.
import type { Transporter } from 'nodemailer';
import type { EmailConfig } from '../config/load.js';

export interface EmailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html?: string;
}

export interface Mailer {
  send(message: EmailMessage): Promise<void>;
  close(): void;
}

/** The SMTP server refused or could not be reached. The message names neither the URL nor its password. */
export class EmailSendError extends Error {
  constructor(readonly reason: string) {
    super(`the email could not be sent: ${reason}`);
    this.name = 'EmailSendError';
  }
}

/** A mailer for `email`, or undefined when email is not configured (or its SMTP URL variable is unset). */
export function openMailer(config: EmailConfig | undefined): Mailer | undefined {
  if (config === undefined || config.smtpUrl === undefined) return undefined;
  const smtpUrl = config.smtpUrl;
  let transport: Transporter | undefined;
  return {
    async send(message) {
      transport ??= (await import('nodemailer')).default.createTransport(smtpUrl);
      try {
        await transport.sendMail({ from: config.from, to: message.to, subject: message.subject, text: message.text, html: message.html });
      } catch (error) {
        const code = (error as { code?: string; responseCode?: number }).code ?? (error as { responseCode?: number }).responseCode;
        throw new EmailSendError(code === undefined ? 'the SMTP server failed' : `SMTP ${String(code)}`);
      }
    },
    close: () => transport?.close(),
  };
}
