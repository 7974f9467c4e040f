import { writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config.js';
import { PRIVATE_FILE_MODE, privateDir } from '../storage/private-files.js';
import type { Mail, Mailer, MailTransport, SmtpSettings } from './port.js';

/**
 * nodemailer behind the mail port (./port.ts): the one module that makes mail transports.
 * Transactional mail gets a short-lived transport per message (`storeSmtpMailer`,
 * `platformDefaultMailer`); campaign mail reuses pooled connections (`pooledTransport`).
 */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 };

/** `address` is the checked address to connect to (see smtp-host-guard); TLS still verifies `smtp.host`. */
function storeSmtpMailer(smtp: SmtpSettings, rejectUnauthorized: boolean, address = smtp.host): Mailer {
  const transporter = nodemailer.createTransport({
    host: address,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    tls: { rejectUnauthorized, ...(address !== smtp.host && !isIP(smtp.host) ? { servername: smtp.host } : {}) },
    ...TIMEOUTS
  });
  return { provider: 'smtp', transporter: transporter as MailTransport };
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
    mailer = { provider: 'platform', transporter: nodemailer.createTransport({ url: config.smtpUrl, ...TIMEOUTS } as Parameters<typeof nodemailer.createTransport>[0]) as MailTransport };
  } else {
    const outbox = path.join(config.storageDir, 'outbox');
    mailer = {
      provider: 'local',
      transporter: nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }) as MailTransport,
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
function pooledTransport(key: string, create: () => Transporter): Transporter {
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

/**
 * A pool like `like`: the store's SMTP transport's options (its checked address, TLS and
 * timeouts) or the platform's SMTP_URL, with up to `maxConnections` connections. The local outbox
 * needs no pool: its own transport is handed back.
 */
function pooledLike(config: Config, key: string, like: Mailer, maxConnections: number): MailTransport {
  if (like.provider === 'smtp') {
    like.transporter.close();
    const options = (like.transporter as unknown as { options: Record<string, unknown> }).options;
    return pooledTransport(key, () => nodemailer.createTransport({ ...options, pool: true, maxConnections, maxMessages: Infinity } as any)) as MailTransport;
  }
  if (like.provider === 'platform') {
    const url = config.smtpUrl;
    return pooledTransport(key, () => nodemailer.createTransport({ url, pool: true, maxConnections, maxMessages: Infinity } as any)) as MailTransport;
  }
  return like.transporter;
}

/** The mail port on nodemailer, for one process's context. */
export function createMail(config: Config): Mail {
  return {
    platform: () => platformDefaultMailer(config),
    store: (smtp, rejectUnauthorized, address) => storeSmtpMailer(smtp, rejectUnauthorized, address),
    pooled: (key, like, maxConnections) => pooledLike(config, key, like, maxConnections)
  };
}
