import { isIP } from 'node:net';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A custom domain a shop can point at us: a fully-qualified DNS name with at least two labels, no
 * IP literal, no wildcard, not one of our own hosts. Returns the problem, or null when it is fine.
 */
export function hostnameProblem(hostname: string, platformHosts: string[]): string | null {
  if (hostname.length > 253) return 'hostname is longer than 253 characters';
  if (isIP(hostname)) return 'hostname must be a domain name, not an IP address';
  const labels = hostname.split('.');
  if (labels.length < 2) return 'hostname must be a fully qualified domain name (e.g. shop.example.com)';
  if (!labels.every((label) => LABEL.test(label))) return 'hostname has an invalid label (letters, digits and inner hyphens only)';
  if (/^[0-9]+$/.test(labels[labels.length - 1]!)) return 'hostname must end in a top-level domain';
  for (const host of platformHosts) {
    if (host && (hostname === host || hostname.endsWith(`.${host}`))) return 'hostname belongs to the platform';
  }
  return null;
}

export function normalizeHostname(value: string): string {
  return value.trim().toLowerCase().replace(/\.$/, '');
}

/** A DNS name as resolvers return it: lower case, without the trailing root dot. */
export const sameName = (a: string, b: string) => normalizeHostname(a) === normalizeHostname(b);
