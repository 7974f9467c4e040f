import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  envelopeTo: string[];
  parsed: ParsedMail;
  raw: string;
}

/**
 * A real SMTP server (smtp-server) on a free local port that keeps every message it accepts.
 * Recipients listed in `rejectRecipients` are refused with a 550, like a real mailbox error.
 */
export class SmtpCapture {
  readonly messages: CapturedMail[] = [];
  readonly rejectRecipients = new Set<string>();
  /** Sessions opened so far (a message may still be on its way). */
  connections = 0;
  /**
   * While true, a message's DATA is never answered: it is neither accepted nor kept, like a server
   * hanging before its 250 (the sender cannot know the message went anywhere).
   */
  hanging = false;
  /** Messages left unanswered while hanging. */
  unanswered = 0;
  private server: SMTPServer;
  private waiters: Array<() => void> = [];
  port = 0;

  constructor(options: { user?: string; password?: string; delayMs?: number } = {}) {
    this.server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      authOptional: !options.user,
      logger: false,
      onConnect: (_session, callback) => {
        this.connections += 1;
        callback();
      },
      onAuth: (auth, _session, callback) => {
        if (options.user && (auth.username !== options.user || auth.password !== options.password)) {
          return callback(new Error('535 Authentication credentials invalid'));
        }
        callback(null, { user: auth.username });
      },
      onRcptTo: (address, _session, callback) => {
        if (this.rejectRecipients.has(address.address.toLowerCase())) {
          const error = new Error('Mailbox unavailable') as Error & { responseCode: number };
          error.responseCode = 550;
          return callback(error);
        }
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', async () => {
          if (this.hanging) {
            this.unanswered += 1;
            return;
          }
          // A slow server, for tests that need a request to stay in flight for a while.
          if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
          const raw = Buffer.concat(chunks).toString('utf8');
          const parsed = await simpleParser(raw);
          this.messages.push({ envelopeTo: session.envelope.rcptTo.map((r) => r.address), parsed, raw });
          for (const wake of this.waiters.splice(0)) wake();
          callback();
        });
      }
    });
  }

  async start(): Promise<this> {
    // A sender killed mid-session (the crash tests) resets its socket: SMTPServer reports that as an
    // 'error' event, which must not become the test process's uncaught exception.
    this.server.on('error', () => undefined);
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as { port: number }).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async waitFor(predicate: (mail: CapturedMail) => boolean, timeoutMs = 10_000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no matching email within ${timeoutMs} ms (have ${this.messages.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
