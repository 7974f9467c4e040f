import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { conflict } from '../../errors.js';
import { decryptSecret, encryptSecret } from '../../platform/secrets.js';
import { checkedSmtpAddress } from './smtp-host-guard.js';
import type { Mailer, MailTransport } from '../../adapters/mail/index.js';
import type { Sql } from '../../db/transaction.js';

export interface EmailSettingsInput {
  fromName?: string | null;
  fromEmail?: string | null;
  replyTo?: string | null;
  smtp?: { host: string; port: number; secure?: boolean; user?: string | null; password?: string | null } | null;
}

interface EmailSettingsRow {
  storeId: string;
  fromName: string | null;
  fromEmail: string | null;
  replyTo: string | null;
  smtpHost: string | null;
  smtpPort: number | null;
  smtpSecure: boolean;
  smtpUser: string | null;
  smtpPasswordEncrypted: string | null;
}

/** What reads show: the SMTP password is write-only, reported only as `passwordSet`. */
export function toEmailSettingsDto(row: EmailSettingsRow | undefined) {
  return {
    fromName: row?.fromName ?? null,
    fromEmail: row?.fromEmail ?? null,
    replyTo: row?.replyTo ?? null,
    smtp: row?.smtpHost
      ? { host: row.smtpHost, port: row.smtpPort, secure: row.smtpSecure, user: row.smtpUser, passwordSet: Boolean(row.smtpPasswordEncrypted) }
      : null
  };
}

export async function readEmailSettings(db: Sql, storeId: string): Promise<EmailSettingsRow | undefined> {
  return db('storeEmailSettings').where({ storeId }).first();
}

/** Upserts the store's email settings inside the caller's transaction. */
export async function writeEmailSettings(db: Sql, encryptionKey: string, storeId: string, input: EmailSettingsInput): Promise<void> {
  const current = await readEmailSettings(db, storeId);
  const row: Partial<EmailSettingsRow> & { storeId: string } = { storeId };
  if (input.fromName !== undefined) row.fromName = input.fromName;
  if (input.fromEmail !== undefined) row.fromEmail = input.fromEmail;
  if (input.replyTo !== undefined) row.replyTo = input.replyTo;
  if (input.smtp === null) {
    Object.assign(row, { smtpHost: null, smtpPort: null, smtpSecure: false, smtpUser: null, smtpPasswordEncrypted: null });
  } else if (input.smtp) {
    row.smtpHost = input.smtp.host;
    row.smtpPort = input.smtp.port;
    row.smtpSecure = input.smtp.secure ?? input.smtp.port === 465;
    if (input.smtp.user !== undefined) row.smtpUser = input.smtp.user;
    // Absent password keeps the stored one (reads never return it, so clients cannot echo it back).
    if (input.smtp.password !== undefined) {
      row.smtpPasswordEncrypted = input.smtp.password ? encryptSecret(input.smtp.password, encryptionKey) : null;
    }
  }
  if (current) await db('storeEmailSettings').where({ storeId }).update({ ...row, updatedAt: db.fn.now() });
  else await db('storeEmailSettings').insert(row);
}

export interface ResolvedSender {
  mailer: Mailer;
  from: string;
  replyTo: string | undefined;
}

function formatAddress(name: string | null | undefined, email: string): string {
  return name ? `"${name.replace(/["\\\r\n]/g, '')}" <${email}>` : email;
}

/** The stored SMTP password; a 409 naming the setting when ENCRYPTION_KEY changed since it was saved. */
function readSmtpPassword(sealed: string, encryptionKey: string): string {
  try {
    return decryptSecret(sealed, encryptionKey);
  } catch {
    throw conflict(
      'secret_unreadable',
      'The stored SMTP password cannot be decrypted with the current ENCRYPTION_KEY: re-enter it (PATCH /admin/store with email.smtp.password)',
      [{ path: 'email.smtp.password', message: 'stored secret is unreadable; enter the password again' }]
    );
  }
}

/** Fails fast (409 secret_unreadable) when the store's SMTP password cannot be decrypted, before any send is queued. */
export async function assertEmailSecretsReadable(ctx: AppContext, storeId: string): Promise<void> {
  const settings = await readEmailSettings(ctx.db, storeId);
  if (settings?.smtpHost && settings.smtpPasswordEncrypted) readSmtpPassword(settings.smtpPasswordEncrypted, ctx.config.encryptionKey);
}

/** The mailer and From line for a store (its own SMTP when configured), or the platform's for storeId null. */
export async function resolveSender(ctx: AppContext, storeId: string | null): Promise<ResolvedSender> {
  const platform = ctx.mail.platform();
  if (!storeId) return { mailer: platform, from: ctx.config.emailFrom, replyTo: undefined };
  const [settings, store] = await Promise.all([
    readEmailSettings(ctx.db, storeId),
    ctx.db('stores').where({ id: storeId }).first('name', 'contactEmail')
  ]);
  const replyTo = settings?.replyTo ?? store?.contactEmail ?? undefined;
  if (settings?.smtpHost && settings.smtpPort) {
    const password = settings.smtpPasswordEncrypted ? readSmtpPassword(settings.smtpPasswordEncrypted, ctx.config.encryptionKey) : null;
    // Checked again at every connect: the name may resolve somewhere else than when it was saved.
    const address = await checkedSmtpAddress(settings.smtpHost, ctx.config.allowPrivateSmtpHosts);
    const mailer = ctx.mail.store(
      { host: settings.smtpHost, port: settings.smtpPort, secure: settings.smtpSecure, user: settings.smtpUser, password },
      ctx.config.smtpTlsRejectUnauthorized,
      address
    );
    const fromEmail = settings.fromEmail ?? settings.smtpUser ?? store?.contactEmail ?? 'no-reply@localhost';
    return { mailer, from: formatAddress(settings.fromName ?? store?.name, fromEmail), replyTo };
  }
  // Platform mailer: our own From address (SPF/DKIM are ours), the store's name for display.
  const platformAddress = /<([^>]+)>/.exec(ctx.config.emailFrom)?.[1] ?? ctx.config.emailFrom;
  return { mailer: platform, from: formatAddress(settings?.fromName ?? store?.name, platformAddress), replyTo };
}

/** A real SMTP handshake (connect, STARTTLS/TLS, AUTH) against the store's server or the platform's. */
export async function verifyEmailProvider(ctx: AppContext, storeId: string) {
  const { mailer } = await resolveSender(ctx, storeId);
  if (mailer.provider === 'local') {
    return { ok: true, provider: 'local', message: 'No SMTP server is configured: messages are kept in the local outbox.' };
  }
  try {
    await mailer.transporter.verify();
    return { ok: true, provider: mailer.provider, message: 'SMTP connection and authentication succeeded.' };
  } catch (error) {
    return { ok: false, provider: mailer.provider, message: (error as Error).message };
  } finally {
    if (mailer.provider === 'smtp') mailer.transporter.close();
  }
}

export interface CampaignSender {
  transporter: MailTransport;
  from: string;
  replyTo: string | undefined;
  provider: Mailer['provider'];
  persist?: Mailer['persist'];
}

/** The store's sender for campaign mail (its SMTP settings or the platform default), with a pooled transport. */
export async function campaignSender(ctx: AppContext, storeId: string): Promise<CampaignSender> {
  const sender = await resolveSender(ctx, storeId);
  const base = { from: sender.from, replyTo: sender.replyTo, provider: sender.mailer.provider };
  const connections = ctx.config.marketing.smtpConnections;
  if (sender.mailer.provider === 'smtp') {
    const settings = (await readEmailSettings(ctx.db, storeId))!;
    const key = createHash('sha256')
      .update(JSON.stringify([settings.smtpHost, settings.smtpPort, settings.smtpSecure, settings.smtpUser, settings.smtpPasswordEncrypted]))
      .digest('hex');
    return { ...base, transporter: ctx.mail.pooled(`store:${key}`, sender.mailer, connections) };
  }
  if (sender.mailer.provider === 'platform') return { ...base, transporter: ctx.mail.pooled(`platform:${ctx.config.smtpUrl}`, sender.mailer, connections) };
  return { ...base, transporter: sender.mailer.transporter, persist: sender.mailer.persist };
}
