import Jwt from '@hapi/jwt';
import type { Config } from '../../config.js';

export const JWT_ALGORITHM = 'HS256';

/**
 * Admin access token. `sv` is the user's session version: a password reset bumps it, which ends
 * every token issued before.
 */
export function issueAccessToken(config: Config, user: { id: string; sessionVersion: number }): string {
  return Jwt.token.generate(
    { sub: user.id, sv: user.sessionVersion, aud: config.jwtAudience, iss: config.jwtIssuer },
    { key: config.jwtSecret, algorithm: JWT_ALGORITHM },
    { ttlSec: config.jwtTtlSec }
  );
}
