import type { AppContext } from '../../context.js';
import { liveApiKeys } from '../../services/api-keys/api-keys.js';
import { effectiveScopes } from '../../services/api-keys/scopes.js';
import { liveMemberships } from '../../services/auth.js';
import { apiKeyRole } from '../../services/roles.js';
import type { RequestCredential } from '../plugins/auth.js';

/** Why a stream's credential no longer holds (null: it still does). */
export type CredentialVerdict = null | { status: 401 | 403; code: 'unauthenticated' | 'forbidden'; message: string };

const gone = (message: string): CredentialVerdict => ({ status: 401, code: 'unauthenticated', message });
const tooLow = (message: string): CredentialVerdict => ({ status: 403, code: 'forbidden', message });

/**
 * Checks again what each open stream was authorised with, as a new request would be: the key not
 * revoked, its creator still a member whose role the route admits, the scope still theirs; the person
 * still a member with an admitted role, their token unexpired and from before no password reset. All
 * the streams of a process in at most two statements (keys, people), whatever their number.
 */
export async function recheckCredentials(ctx: AppContext, credentials: RequestCredential[]): Promise<CredentialVerdict[]> {
  const keyRefs = credentials.flatMap((c) => (c.kind === 'key' ? [{ storeId: c.storeId, keyId: c.keyId }] : []));
  const userRefs = credentials.flatMap((c) => (c.kind === 'user' ? [{ storeId: c.storeId, userId: c.userId }] : []));
  const [keys, members] = await Promise.all([liveApiKeys(ctx, dedupe(keyRefs, (r) => r.keyId)), liveMemberships(ctx, dedupe(userRefs, (r) => `${r.storeId}|${r.userId}`))]);
  const now = Date.now();
  return credentials.map((credential) => {
    if (credential.kind === 'key') {
      const key = keys.get(credential.keyId);
      if (!key) return gone('The API key was revoked');
      const scope = credential.scope;
      if (!scope || !effectiveScopes(key.scopes, key.creatorRole).includes(scope) || !credential.roles.includes(apiKeyRole(key.creatorRole))) {
        return tooLow("The API key's creator no longer has the rights this stream needs");
      }
      return null;
    }
    if (credential.expiresAt <= now) return gone('The access token expired');
    const member = members.get(`${credential.storeId}|${credential.userId}`);
    if (!member) return gone('You are no longer a member of this store');
    if (member.sessionVersion !== credential.sessionVersion) return gone('The access token was revoked');
    if (!credential.roles.includes(member.role)) return tooLow(`This stream needs one of the roles: ${credential.roles.join(', ')}`);
    return null;
  });
}

function dedupe<T>(items: T[], key: (item: T) => string): T[] {
  return [...new Map(items.map((item) => [key(item), item])).values()];
}
