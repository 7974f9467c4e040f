/**
 * How a failed SMTP send is treated: `transient` (4xx replies, timeouts, connection trouble) is
 * retried later; `permanent` (5xx replies about the recipient or message) fails the recipient and
 * suppresses the address; anything else fails the recipient without suppressing.
 */
export type SmtpFailure = 'transient' | 'permanent' | 'other';

const TRANSIENT_CODES = new Set(['ETIMEDOUT', 'ECONNECTION', 'ESOCKET', 'ECONNRESET', 'ECONNREFUSED', 'EDNS', 'ETLS', 'EPIPE']);

export function classifySmtpError(error: unknown): SmtpFailure {
  const e = error as { responseCode?: number; code?: string; command?: string };
  if (e?.code === 'EAUTH') return 'transient';
  if (typeof e?.responseCode === 'number') {
    if (e.responseCode >= 400 && e.responseCode < 500) return 'transient';
    // Only a refusal of this recipient or this message says something about the address.
    if (e.responseCode >= 500) return e.code === 'EENVELOPE' || /RCPT|DATA/i.test(e.command ?? '') ? 'permanent' : 'other';
  }
  if (e?.code && TRANSIENT_CODES.has(e.code)) return 'transient';
  return 'other';
}
