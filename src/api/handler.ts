import type { Lifecycle, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type { AppContext } from '../context.js';
import type { Tenant } from '../platform/roles.js';
import { storefrontOf, tenantOf, userIdOf } from './plugins/auth.js';

/**
 * What a route handler needs, handed to it instead of fished out of the request: the context, the
 * validated params, payload and query (typed by the handler: joi has already checked them), and
 * the request and toolkit for what is left (headers, `h.response(...).code(201)`).
 */
export interface Call<P, B, Q> {
  ctx: AppContext;
  params: P;
  payload: B;
  query: Q;
  request: Request;
  h: ResponseToolkit;
}

/** Who acts on an admin route: the member, or the API key with the member who created it. */
export type Actor = Tenant;

/** An admin call: the store the request is scoped to and the actor, besides the rest. */
export interface AdminCall<P, B, Q> extends Call<P, B, Q> {
  storeId: string;
  actor: Actor;
}

/** A storefront call: the store its token selects and the token's id. */
export interface StorefrontCall<P, B, Q> extends Call<P, B, Q> {
  storeId: string;
  tokenId: string;
}

/** A signed-in user's call that names no store (account routes). */
export interface UserCall<P, B, Q> extends Call<P, B, Q> {
  userId: string;
}

/**
 * The context for what runs around a handler rather than as one (a validation `failAction`, an
 * `ext` point): handlers get it in their call.
 */
export const contextOf = (request: Request): AppContext => request.server.app.ctx;

type Answer = unknown | ResponseObject | symbol;
type Params = Record<string, string>;

function callOf<P, B, Q>(request: Request, h: ResponseToolkit): Call<P, B, Q> {
  return {
    ctx: request.server.app.ctx,
    params: request.params as P,
    payload: request.payload as B,
    query: request.query as Q,
    request,
    h
  };
}

/** The handler of an `adminRoute`: `adminHandler<{ productId: string }, Input>(({ ctx, storeId, params, payload }) => …)`. */
export function adminHandler<P = Params, B = undefined, Q = Record<string, unknown>>(handle: (call: AdminCall<P, B, Q>) => Answer | Promise<Answer>): Lifecycle.Method {
  return (request, h) => {
    const actor = tenantOf(request);
    return handle({ ...callOf<P, B, Q>(request, h), storeId: actor.storeId, actor }) as Lifecycle.ReturnValue;
  };
}

/** The handler of a `storefrontRoute`. */
export function storefrontHandler<P = Params, B = undefined, Q = Record<string, unknown>>(handle: (call: StorefrontCall<P, B, Q>) => Answer | Promise<Answer>): Lifecycle.Method {
  return (request, h) => {
    const { storeId, tokenId } = storefrontOf(request);
    return handle({ ...callOf<P, B, Q>(request, h), storeId, tokenId }) as Lifecycle.ReturnValue;
  };
}

/** The handler of a `userRoute`. */
export function userHandler<P = Params, B = undefined, Q = Record<string, unknown>>(handle: (call: UserCall<P, B, Q>) => Answer | Promise<Answer>): Lifecycle.Method {
  return (request, h) => handle({ ...callOf<P, B, Q>(request, h), userId: userIdOf(request) }) as Lifecycle.ReturnValue;
}

/** The handler of a public or internal route: no tenant, only the context and the input. */
export function publicHandler<P = Params, B = undefined, Q = Record<string, unknown>>(handle: (call: Call<P, B, Q>) => Answer | Promise<Answer>): Lifecycle.Method {
  return (request, h) => handle(callOf<P, B, Q>(request, h)) as Lifecycle.ReturnValue;
}
