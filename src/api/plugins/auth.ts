import Boom from '@hapi/boom';
import Jwt from '@hapi/jwt';
import type { Plugin, Request, ResponseToolkit } from '@hapi/hapi';
import { AppError, badRequest, forbidden, isBackendDown, serviceUnavailable, unauthenticated } from '../../errors.js';
import { appErrorResponse } from './envelope.js';
import { clientIp } from '../client-ip.js';
import { findMembership, JWT_ALGORITHM, userForAccessToken } from '../../services/accounts/index.js';
import { apiKeyRole } from '../../platform/roles.js';
import { API_KEY_PREFIX, authenticateApiKey, consumeApiKeyRate, effectiveScopes, type ApiKeyPrincipal } from '../../services/api-keys/index.js';
import type { ApiKeyScope } from '../../services/api-keys/index.js';
import { LocalRateLimiter } from '../../platform/rate-limit.js';
import type { Role, Tenant } from '../../platform/roles.js';
import { authenticateStorefrontToken, STOREFRONT_TOKEN_PREFIX } from '../../services/stores/index.js';

declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    /** Roles allowed on an admin route; set by `adminRoute`. */
    tenancy?: { roles: readonly Role[] };
    /** The scope an admin API key needs on this route (null: keys refused); set by `adminRoute`. */
    apiKey?: { scope: ApiKeyScope | null };
  }
  interface RequestApplicationState {
    tenant?: Tenant;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function storefrontSecretFrom(request: Request): string | undefined {
  const header = request.headers['x-storefront-token'];
  if (typeof header === 'string' && header) return header.trim();
  const authorization = request.headers.authorization as string | undefined;
  if (authorization) {
    const [scheme, value] = authorization.split(/\s+/, 2);
    if (scheme?.toLowerCase() === 'bearer' && value?.startsWith(STOREFRONT_TOKEN_PREFIX)) return value;
  }
  return undefined;
}

function apiKeySecretFrom(request: Request): string | undefined {
  const authorization = request.headers.authorization as string | undefined;
  if (!authorization) return undefined;
  const [scheme, value] = authorization.split(/\s+/, 2);
  return scheme?.toLowerCase() === 'bearer' && value?.startsWith(API_KEY_PREFIX) ? value : undefined;
}

/**
 * The tenant of a request made with an admin API key: its own store only (an x-store-id naming
 * another is refused like a store one is not a member of), and only a route whose scope it holds.
 */
function apiKeyTenant(request: Request, principal: ApiKeyPrincipal): Tenant {
  const header = request.headers['x-store-id'];
  if (header !== undefined && (typeof header !== 'string' || header.toLowerCase() !== principal.storeId)) {
    throw forbidden('This API key belongs to another store');
  }
  const scope = request.route.settings.plugins?.apiKey?.scope;
  if (!request.route.settings.plugins?.tenancy || !scope) throw forbidden('API keys cannot call this route; it needs a signed-in member');
  if (!principal.scopes.includes(scope)) {
    throw new AppError(403, 'insufficient_scope', `This API key lacks the scope ${scope}`, [{ path: 'scopes', message: `requires ${scope}` }]);
  }
  // A key never exceeds its creator's rights now: its scope must be one their current role grants,
  // and the route must admit that role (the role read with the key; a change drops it everywhere).
  const role = apiKeyRole(principal.creatorRole);
  const roles = request.route.settings.plugins.tenancy.roles;
  if (!effectiveScopes(principal.scopes, principal.creatorRole).includes(scope) || !roles.includes(role)) {
    throw forbidden(`The member who created this API key is now ${principal.creatorRole}; this action needs one of the roles: ${roles.join(', ')}`);
  }
  return { storeId: principal.storeId, userId: principal.createdBy, role, apiKeyId: principal.keyId, apiKeyScopes: effectiveScopes(principal.scopes, principal.creatorRole) };
}

/** The store an admin request names in x-store-id, lowercased; 400 when missing or not a store id. */
function tenantStoreId(request: Request): string {
  const storeId = request.headers['x-store-id'];
  if (typeof storeId !== 'string' || !storeId) {
    throw badRequest('The x-store-id header is required', [{ path: 'x-store-id', message: 'x-store-id header is required' }]);
  }
  if (!UUID.test(storeId)) throw badRequest('The x-store-id header must be a store id', [{ path: 'x-store-id', message: 'must be a valid UUID' }]);
  return storeId.toLowerCase();
}

/** The tenant of an admin request from the user's role in the header's store (null: not a member). */
function checkedTenant(request: Request, userId: string, role: Role | null, roles: readonly Role[]): Tenant {
  const storeId = tenantStoreId(request);
  if (!role) throw forbidden('You are not a member of this store');
  if (!roles.includes(role)) throw forbidden(`This action needs one of the roles: ${roles.join(', ')}`);
  return { storeId, userId, role };
}

/**
 * "No API key here, try the next strategy": every admin request signed with a JWT passes through
 * this answer, and a new Boom captures a stack each time (8 µs). hapi only reads it (`isMissing`,
 * its `WWW-Authenticate` challenge), so one instance serves every request.
 */
const NO_API_KEY = Boom.unauthorized(null, 'Bearer');

/**
 * Four strategies: `admin` (JWT, for /admin/** and /auth/me), `api-key` (swk_ admin API keys,
 * scoped, for admin routes), `storefront` (swsf_ token that selects the store), and the tenancy check that turns JWT + x-store-id into `request.app.tenant`.
 */
export const authPlugin: Plugin<void> = {
  name: 'shopwright-auth',
  dependencies: [],
  async register(server) {
    const ctx = server.app.ctx;
    await server.register(Jwt);

    server.auth.strategy('admin', 'jwt', {
      keys: { key: ctx.config.jwtSecret, algorithms: [JWT_ALGORITHM] },
      verify: {
        aud: ctx.config.jwtAudience,
        iss: ctx.config.jwtIssuer,
        sub: false,
        nbf: true,
        exp: true,
        // Without maxAgeSec @hapi/jwt accepts a token that carries no exp at all.
        maxAgeSec: ctx.config.jwtTtlSec,
        timeSkewSec: 15
      },
      // Runs before hapi reads the body: the tenancy check (x-store-id, membership, role) is made here
      // too, so an upload from someone who may not make it is refused before a byte is streamed to disk.
      validate: async (artifacts: { decoded: { payload: { sub: string; sv?: unknown; exp?: unknown } } }, request: Request, h: ResponseToolkit) => {
        const payload = artifacts.decoded.payload;
        if (typeof payload.exp !== 'number') return { isValid: false };
        try {
          // The user and, for an admin route, their role in the header's store: one query. A bad
          // header is still answered after the token check (401 before 400).
          const tenancy = request.route.settings.plugins?.tenancy;
          const header = request.headers['x-store-id'];
          const storeId = tenancy && typeof header === 'string' && UUID.test(header) ? header.toLowerCase() : null;
          const user = await userForAccessToken(ctx, payload.sub, payload.sv, storeId);
          if (!user) return { isValid: false };
          if (tenancy) request.app.tenant = checkedTenant(request, user.id, user.role, tenancy.roles);
          return { isValid: true, credentials: { userId: user.id, email: user.email } };
        } catch (error) {
          // @hapi/jwt turns anything thrown here into 401 (and clients log their users out during an
          // outage): answer 400/403/503 directly instead. Other failures are logged and answered 500.
          if (error instanceof AppError) return { isValid: false, response: appErrorResponse(h, error) };
          if (isBackendDown(error)) return { isValid: false, response: appErrorResponse(h, serviceUnavailable()) };
          ctx.log.error({ err: { message: (error as Error).message } }, 'access token check failed');
          return { isValid: false, response: appErrorResponse(h, new AppError(500, 'internal_error', 'Something went wrong on our side')) };
        }
      }
    });

    // The storefront token is public and shared by every shopper of a store, so one shopper (or
    // scraper) is limited per token and client address, and the token as a whole has a ceiling
    // sized for a large store's traffic through one process.
    const storefrontClientLimiter = new LocalRateLimiter(ctx.config.rateLimits.storefrontPerClientPerMinute, 60, 200_000);
    const storefrontTokenLimiter = new LocalRateLimiter(ctx.config.rateLimits.storefrontPerTokenPerMinute);
    server.auth.scheme('storefront-token', () => ({
      authenticate: async (request: Request, h: ResponseToolkit) => {
        const secret = storefrontSecretFrom(request);
        if (!secret) throw unauthenticated('A storefront token is required (x-storefront-token)', 'Storefront');
        const principal = await authenticateStorefrontToken(ctx, secret);
        if (!principal) throw unauthenticated('The storefront token is invalid or revoked', 'Storefront');
        storefrontClientLimiter.consume(`${principal.tokenId}|${clientIp(request)}`);
        storefrontTokenLimiter.consume(principal.tokenId);
        return h.authenticated({ credentials: { storeId: principal.storeId, tokenId: principal.tokenId } });
      }
    }));
    server.auth.strategy('storefront', 'storefront-token');

    // Admin API keys, tried before the JWT on admin routes: a bearer that is not `swk_` is "missing"
    // here, so hapi goes on to the JWT strategy with everything as before.
    server.auth.scheme('api-key', () => ({
      authenticate: async (request: Request, h: ResponseToolkit) => {
        const secret = apiKeySecretFrom(request);
        if (!secret) return h.unauthenticated(NO_API_KEY);
        const principal = await authenticateApiKey(ctx, secret);
        if (!principal) throw unauthenticated('The API key is invalid or revoked');
        await consumeApiKeyRate(ctx, principal.keyId);
        request.app.tenant = apiKeyTenant(request, principal);
        return h.authenticated({ credentials: { userId: principal.createdBy, apiKeyId: principal.keyId, storeId: principal.storeId } });
      }
    }));
    server.auth.strategy('api-key', 'api-key');

    // A net for credentials that did not come through the strategy (server.inject with `auth`).
    // Synchronous for routes without tenancy: no promise on the storefront's hot path.
    server.ext('onPostAuth', (request, h) => {
      const tenancy = request.route.settings.plugins?.tenancy;
      if (!tenancy || request.app.tenant) return h.continue;
      return resolveTenant(request, (request.auth.credentials as { userId: string }).userId, tenancy.roles).then(() => h.continue);
    });

    const resolveTenant = async (request: Request, userId: string, roles: readonly Role[]) => {
      const storeId = tenantStoreId(request);
      const membership = await findMembership(ctx, storeId, userId);
      request.app.tenant = checkedTenant(request, userId, membership?.role ?? null, roles);
    };
  }
};

/** The tenant of an admin request; set by the tenancy check before any handler runs. */
export function tenantOf(request: Request): Tenant {
  const tenant = request.app.tenant;
  if (!tenant) throw new Error('tenantOf called on a route without tenancy');
  return tenant;
}

/**
 * What an admin request was authenticated with, for the checks made again while it lasts (an event
 * stream re-checks it on every poll): the key and the scope the route needs, or the person, their
 * token's session version and expiry; with the roles the route admits either way.
 */
export type RequestCredential =
  | { kind: 'key'; storeId: string; keyId: string; scope: ApiKeyScope | null; roles: readonly Role[] }
  | { kind: 'user'; storeId: string; userId: string; sessionVersion: unknown; expiresAt: number; roles: readonly Role[] };

export function credentialOf(request: Request): RequestCredential {
  const tenant = tenantOf(request);
  const roles = request.route.settings.plugins?.tenancy?.roles ?? [];
  if (tenant.apiKeyId) return { kind: 'key', storeId: tenant.storeId, keyId: tenant.apiKeyId, scope: request.route.settings.plugins?.apiKey?.scope ?? null, roles };
  const payload = (request.auth.artifacts as { decoded?: { payload?: { sv?: unknown; exp?: unknown } } } | undefined)?.decoded?.payload;
  const expiresAt = typeof payload?.exp === 'number' ? payload.exp * 1000 : 0;
  return { kind: 'user', storeId: tenant.storeId, userId: tenant.userId, sessionVersion: payload?.sv, expiresAt, roles };
}

export function storefrontOf(request: Request): { storeId: string; tokenId: string } {
  return request.auth.credentials as unknown as { storeId: string; tokenId: string };
}

export function userIdOf(request: Request): string {
  return (request.auth.credentials as { userId: string }).userId;
}
