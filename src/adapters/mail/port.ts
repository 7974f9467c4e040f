export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password: string | null;
}

/** The store's own SMTP server, the platform's SMTP_URL, or the local outbox when neither is set. */
export const MAILER_PROVIDERS = ['smtp', 'platform', 'local'] as const;

/** A message to send: composed (from, to, subject, html, text, headers) or already raw MIME with its envelope. */
export interface OutgoingMail {
  from?: string;
  replyTo?: string;
  to?: string;
  subject?: string;
  html?: string;
  text?: string;
  headers?: Record<string, string>;
  envelope?: { from: string; to: string[] };
  raw?: string | Buffer;
}

/** What the server (or the local outbox) answered; `message` holds the raw bytes when the transport keeps them. */
export interface SentMail {
  messageId: string;
  accepted?: unknown[];
  message?: unknown;
}

/** A connection (or pool of connections) to a mail server. */
export interface MailTransport {
  sendMail(mail: OutgoingMail): Promise<SentMail>;
  /** A real handshake: connect, STARTTLS/TLS, AUTH. */
  verify(): Promise<unknown>;
  close(): void;
}

export interface Mailer {
  provider: (typeof MAILER_PROVIDERS)[number];
  transporter: MailTransport;
  /** Writes what the local outbox captured to disk (the local default has no server to send to). */
  persist?: (messageId: string, raw: Buffer) => Promise<void>;
}

/**
 * The mail port, chosen once by createContext (`ctx.mail`). Transactional mail gets a short-lived
 * transport per message (`store`, `platform`); campaign mail, thousands of messages per batch,
 * reuses pooled connections (`pooled`).
 */
export interface Mail {
  /** The platform's own mailer: SMTP_URL when set, else the local `.eml` outbox under STORAGE_DIR/outbox. */
  platform(): Mailer;
  /** A store's own SMTP server; `address` is the checked address to connect to (TLS still verifies `smtp.host`). */
  store(smtp: SmtpSettings, rejectUnauthorized: boolean, address?: string): Mailer;
  /** A pooled transport for campaign mail, kept under `key` (a digest of its settings) and closed after a minute unused. */
  pooled(key: string, like: Mailer, maxConnections: number): MailTransport;
}
