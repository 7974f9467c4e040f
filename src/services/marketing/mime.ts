import { randomBytes } from 'node:crypto';

/**
 * Campaign messages as ready-made MIME (one Buffer per recipient), handed to nodemailer as `raw`:
 * its general-purpose composer (address parsing, quoted-printable streams, plugins) was most of a
 * worker's CPU per message. Bodies are base64 in 76-character lines; headers are ASCII, with RFC
 * 2047 encoded words for anything else.
 */
export interface CampaignMessage {
  from: string;
  to: string;
  replyTo?: string | undefined;
  subject: string;
  html?: string | undefined;
  text: string;
  headers: Record<string, string>;
  messageId: string;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** RFC 2047 B-encoding in words of at most 45 source bytes, split on code points. */
export function encodeHeaderText(value: string): string {
  const clean = value.replace(/[\r\n]+/g, ' ');
  if (PRINTABLE_ASCII.test(clean)) return clean;
  const words: string[] = [];
  let current = '';
  for (const char of clean) {
    if (Buffer.byteLength(current + char) > 45) {
      words.push(current);
      current = '';
    }
    current += char;
  }
  if (current) words.push(current);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word).toString('base64')}?=`).join('\r\n ');
}

/** `"Name" <addr>` or `addr`, with the display name encoded when it is not ASCII. */
export function encodeAddress(address: string): { header: string; email: string } {
  const match = /^"(.*)"\s*<([^>]+)>$/.exec(address.trim());
  if (!match) return { header: address.trim(), email: address.trim() };
  const [, name, email] = match as unknown as [string, string, string];
  const display = PRINTABLE_ASCII.test(name) ? `"${name.replace(/["\\]/g, '')}"` : encodeHeaderText(name);
  return { header: `${display} <${email}>`, email };
}

function base64Body(content: string): string {
  const encoded = Buffer.from(content, 'utf8').toString('base64');
  if (encoded.length <= 76) return encoded;
  const lines: string[] = [];
  for (let i = 0; i < encoded.length; i += 76) lines.push(encoded.slice(i, i + 76));
  return lines.join('\r\n');
}

// Boundaries only have to be absent from the base64 parts (which never contain "_"): a per-process
// random prefix and a counter, instead of fresh random bytes per message.
const BOUNDARY_PREFIX = `_sw_${randomBytes(8).toString('hex')}_`;
let boundaryCounter = 0;

function part(type: string, content: string): string {
  return `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n${base64Body(content)}\r\n`;
}

export function buildCampaignMessage(message: CampaignMessage): { raw: Buffer; envelope: { from: string; to: string[] } } {
  const from = encodeAddress(message.from);
  const lines = [
    `From: ${from.header}`,
    `To: ${message.to}`,
    ...(message.replyTo ? [`Reply-To: ${encodeAddress(message.replyTo).header}`] : []),
    `Subject: ${encodeHeaderText(message.subject)}`,
    `Message-ID: ${message.messageId}`,
    `Date: ${new Date().toUTCString().replace('GMT', '+0000')}`,
    'MIME-Version: 1.0',
    ...Object.entries(message.headers).map(([name, value]) => `${name}: ${value.replace(/[\r\n]+/g, ' ')}`)
  ];
  let body: string;
  if (message.html) {
    boundaryCounter = (boundaryCounter + 1) % 1e9;
    const boundary = `${BOUNDARY_PREFIX}${boundaryCounter}`;
    lines.push(`Content-Type: multipart/alternative; boundary="${boundary}"`);
    body = `--${boundary}\r\n${part('text/plain', message.text)}--${boundary}\r\n${part('text/html', message.html)}--${boundary}--\r\n`;
  } else {
    lines.push('Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: base64');
    body = `${base64Body(message.text)}\r\n`;
  }
  return { raw: Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`), envelope: { from: from.email, to: [message.to] } };
}
