import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** URL-safe random secret, e.g. the body of a storefront token or a reset link token. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Tokens are stored as SHA-256: they are long random secrets, so a slow hash buys nothing. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function scryptAsync(password: string, salt: Buffer, keylen: number, cost: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, keylen, { N: cost, r: 8, p: 1, maxmem: 256 * cost * 8 + 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key)
    );
  });
}

/** Memory-hard password hash (scrypt, from node:crypto): `scrypt$N$salt$hash`. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, 32, cost);
  return `scrypt$${cost}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, costText, saltText, hashText] = stored.split('$');
  if (scheme !== 'scrypt' || !costText || !saltText || !hashText) return false;
  const expected = Buffer.from(hashText, 'base64url');
  const key = await scryptAsync(password, Buffer.from(saltText, 'base64url'), expected.length, Number(costText));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** AES-256-GCM for secrets at rest (SMTP passwords, API keys): `v1:iv:tag:ciphertext`. */
export function encryptSecret(plain: string, encryptionKey: string): string {
  const key = createHash('sha256').update(encryptionKey).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
}

export function decryptSecret(sealed: string, encryptionKey: string): string {
  const [version, ivText, tagText, bodyText] = sealed.split(':');
  if (version !== 'v1' || !ivText || !tagText || bodyText === undefined) throw new Error('unreadable sealed secret');
  const key = createHash('sha256').update(encryptionKey).digest();
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
  decipher.setAuthTag(Buffer.from(tagText, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(bodyText, 'base64url')), decipher.final()]).toString('utf8');
}

/** Shows a secret's shape without the secret: `j***@example.com`. */
export function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
}
