import { writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config.js';
import { PRIVATE_FILE_MODE, privateDir } from '../storage/private-files.js';

export interface SmtpSettings {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password: string | null;
}

/** The store's own SMTP server, the platform's SMTP_URL, or the local outbox when neither is set. */
export const MAILER_PROVIDERS = ['smtp', 'platform', 'local'] as const;

export interface Mailer {
  provider: (typeof MAILER_PROVIDERS)[number];
  transporter: Transporter;
  /** Writes what the local outbox captured to disk (the local default has no server to send to). */
  persist?: (messageId: string, raw: Buffer) => Promise<void>;
}

/**
 * The one mail transport module. Transactional mail gets a short-lived transport per message
 * (`storeSmtpMailer`, `platformDefaultMailer`); campaign mail, thousands of messages per batch,
 * reuses pooled connections (`pooledTransport`, resolved per store by `campaignSender` in
 * settings.ts).
 */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** `address` is the checked address to connect to (see smtp-host-guard); TLS still verifies `smtp.host`. */
export function storeSmtpMailer(smtp: SmtpSettings, rejectUnauthorized: boolean, address = smtp.host): Mailer {
  const transporter = nodemailer.createTransport({
    host: address,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    tls: { rejectUnauthorized, ...(address !== smtp.host && !isIP(smtp.host) ? { servername: smtp.host } : {}) },
    ...TIMEOUTS
  });
  return { provider: 'smtp', transporter };
}

let platformMailer: { url: string; mailer: Mailer } | null = null;

/**
 * The platform's own mailer: `SMTP_URL` when set; otherwise a local outbox that keeps every message
 * as an .eml file under STORAGE_DIR/outbox, so a fresh `npm start` can send without any SMTP server.
 * Those files carry password reset and invite links: 0600 in a 0700 folder.
 */
export function platformDefaultMailer(config: Config): Mailer {
  const key = config.smtpUrl || `local:${config.storageDir}`;
  if (platformMailer?.url === key) return platformMailer.mailer;
  let mailer: Mailer;
  if (config.smtpUrl) {
    // The same timeouts as store transports (nodemailer waits minutes by default); the URL's own query wins.
    mailer = { provider: 'platform', transporter: nodemailer.createTransport({ url: config.smtpUrl, ...TIMEOUTS } as Parameters<typeof nodemailer.createTransport>[0]) };
  } else {
    const outbox = path.join(config.storageDir, 'outbox');
    mailer = {
      provider: 'local',
      transporter: nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
      persist: async (messageId, raw) => {
        await privateDir(outbox);
        await writeFile(path.join(outbox, `${messageId.replace(/[^a-zA-Z0-9._-]/g, '_')}.eml`), raw, { mode: PRIVATE_FILE_MODE });
      }
    };
  }
  platformMailer = { url: key, mailer };
  return mailer;
}

/**
 * Pooled SMTP transports for campaign mail: one pool per distinct store transport (or the platform
 * one), kept across batches and closed after a minute unused.
 */
interface PooledTransport {
  transporter: Transporter;
  lastUsed: number;
}

const pools = new Map<string, PooledTransport>();
const IDLE_MS = 60_000;
let sweeper: NodeJS.Timeout | null = null;

function sweepIdle() {
  const now = Date.now();
  for (const [key, pool] of pools) {
    if (now - pool.lastUsed > IDLE_MS) {
      pool.transporter.close();
      pools.delete(key);
    }
  }
  if (!pools.size && sweeper) {
    clearInterval(sweeper);
    sweeper = null;
  }
}

/** The pooled transport kept under `key` (a digest of its settings), made with `create` the first time. */
export function pooledTransport(key: string, create: () => Transporter): Transporter {
  let pool = pools.get(key);
  if (!pool) {
    pool = { transporter: create(), lastUsed: Date.now() };
    pools.set(key, pool);
    if (!sweeper) {
      sweeper = setInterval(sweepIdle, IDLE_MS / 2);
      sweeper.unref();
    }
  }
  pool.lastUsed = Date.now();
  return pool.transporter;
}

/** Closes every pool (worker shutdown, tests, benchmarks). */
export function closeCampaignTransports(): void {
  for (const pool of pools.values()) pool.transporter.close();
  pools.clear();
  if (sweeper) clearInterval(sweeper);
  sweeper = null;
}
