// A real SMTP server for the tests (the `smtp-server` package) on a free loopback port: the
// gateway's nodemailer sends to it as to any mail relay, and the test reads what arrived:
// the recipient, the subject and the text (quoted-printable undone), and the link in it.
import type { AddressInfo } from 'node:net';
import type { ExecutionContext } from 'ava';
import { SMTPServer } from 'smtp-server';
import { eventually } from './eventually.js';

export interface ReceivedEmail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export interface TestSmtpServer {
  /** For the variable email.smtp_url_env names: smtp://127.0.0.1:<port> (no TLS, no login). */
  readonly url: string;
  readonly messages: ReceivedEmail[];
  /** Waits for the `count`-th message to `to` (1 = the first) and returns it. */
  nextTo(to: string, count?: number): Promise<ReceivedEmail>;
}

/** Undoes the transfer encodings nodemailer uses for a text part (quoted-printable, base64) and MIME's encoded-word subjects. */
function decodeMessage(raw: string): { subject: string; text: string } {
  const [head = '', ...rest] = raw.split(/\r?\n\r?\n/);
  const headers = head.replace(/\r?\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(headers)?.[1] ?? '';
  const subject = header('Subject').replace(/=\?utf-8\?([BQ])\?([^?]*)\?=\s*/gi, (_all, kind: string, data: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : decodeQuotedPrintable(data.replace(/_/g, ' ')),
  );
  const body = rest.join('\n\n');
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text = encoding === 'quoted-printable' ? decodeQuotedPrintable(body) : encoding === 'base64' ? Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8') : body;
  return { subject, text: text.replace(/\r\n/g, '\n') };
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const unfolded = text.replace(/=\r?\n/g, '');
  for (let index = 0; index < unfolded.length; index++) {
    const char = unfolded[index]!;
    if (char === '=' && /^[0-9A-F]{2}$/i.test(unfolded.slice(index + 1, index + 3))) {
      bytes.push(parseInt(unfolded.slice(index + 1, index + 3), 16));
      index += 2;
    } else bytes.push(...Buffer.from(char, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

export async function startSmtpServer(t: ExecutionContext): Promise<TestSmtpServer> {
  const messages: ReceivedEmail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const { subject, text } = decodeMessage(Buffer.concat(chunks).toString('utf8'));
        for (const recipient of session.envelope.rcptTo) messages.push({ to: recipient.address, subject, text });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async nextTo(to, count = 1) {
      let found: ReceivedEmail | undefined;
      await eventually(
        () => {
          found = messages.filter((message) => message.to === to)[count - 1];
          return found !== undefined;
        },
        { what: `email #${count} to ${to}` },
      );
      return found!;
    },
  };
}

/** The token of the gateway link in an email (`…/cabinet/verify#token=gwe_…`), and the link's path. */
export function linkIn(email: ReceivedEmail): { url: string; path: string; token: string } {
  const match = /(https?:\/\/[^\s]+?(\/cabinet\/[a-z]+)#token=(gwe_[\w-]+))/.exec(email.text);
  if (!match) throw new Error(`no link in the email "${email.subject}": ${email.text}`);
  return { url: match[1]!, path: match[2]!, token: match[3]! };
}
