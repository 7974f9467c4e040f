import { createHash } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { AppContext } from '../../context.js';
import { readEmailSettings, resolveSender } from '../email/settings.js';
import type { Mailer } from '../email/transport.js';

/**
 * Pooled SMTP transports for campaign mail: one pool per distinct store transport (or the platform
 * one), kept across batches and closed after a minute unused. Transactional email keeps its own
 * short-lived transports; campaigns send thousands of messages and must reuse connections.
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

function pooled(key: string, create: () => Transporter): Transporter {
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

export interface CampaignSender {
  transporter: Transporter;
  from: string;
  replyTo: string | undefined;
  provider: Mailer['provider'];
  persist?: Mailer['persist'];
}

/** The store's sender (its SMTP settings or the platform default), with a pooled transport. */
export async function campaignSender(ctx: AppContext, storeId: string): Promise<CampaignSender> {
  const sender = await resolveSender(ctx, storeId);
  const base = { from: sender.from, replyTo: sender.replyTo, provider: sender.mailer.provider };
  const connections = ctx.config.marketing.smtpConnections;
  if (sender.mailer.provider === 'smtp') {
    sender.mailer.transporter.close();
    const settings = (await readEmailSettings(ctx.db, storeId))!;
    const key = createHash('sha256')
      .update(JSON.stringify([settings.smtpHost, settings.smtpPort, settings.smtpSecure, settings.smtpUser, settings.smtpPasswordEncrypted]))
      .digest('hex');
    const options = (sender.mailer.transporter as unknown as { options: Record<string, unknown> }).options;
    return { ...base, transporter: pooled(`store:${key}`, () => nodemailer.createTransport({ ...options, pool: true, maxConnections: connections, maxMessages: Infinity } as any)) };
  }
  if (sender.mailer.provider === 'platform') {
    const url = ctx.config.smtpUrl;
    return { ...base, transporter: pooled(`platform:${url}`, () => nodemailer.createTransport({ url, pool: true, maxConnections: connections, maxMessages: Infinity } as any)) };
  }
  return { ...base, transporter: sender.mailer.transporter, persist: sender.mailer.persist };
}
