import { createZone, deleteZone, getZone, listZones, updateZone, type RateInput, type ZoneInput } from '../../services/shipping/index.js';
import { ADMINS, ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';
import { createZonePayload, updateZonePayload, zoneDeletedResponse, zoneListResponse, zoneResponse } from './schemas.js';

type ZoneParams = { zoneId: string };
const TAGS = ['shipping'];

export const listZonesRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/shipping-zones',
  options: {
    description: "The store's shipping zones with their rates, in the order shoppers see them (every zone, at most 100: no pages)",
    tags: TAGS,
    response: { status: { 200: zoneListResponse } },
    handler: adminHandler(({ ctx, storeId }) => listZones(ctx, storeId))
  }
});

export const createZoneRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/shipping-zones',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'Create a shipping zone: countries (none: everywhere), optional regions (US-CA or CA) and postcode patterns, and its rates (flat, weight bands, subtotal bands, pickup; freeOver; estimate). 409 when a rate id is taken by another zone. Owner or admin',
    tags: TAGS,
    validate: { payload: createZonePayload },
    response: { status: { 201: zoneResponse } },
    handler: adminHandler<{}, ZoneInput & { name: string; countries: string[]; rates: RateInput[] }>(async ({ ctx, storeId, payload, h }) =>
      h.response(await createZone(ctx, storeId, payload)).code(201)
    )
  }
});

export const getZoneRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/shipping-zones/{zoneId}',
  options: {
    description: 'A shipping zone with its rates',
    tags: TAGS,
    validate: { params: idParams('zoneId') },
    response: { status: { 200: zoneResponse } },
    handler: adminHandler<ZoneParams>(({ ctx, storeId, params }) => getZone(ctx, storeId, params.zoneId))
  }
});

export const updateZoneRoute = adminRoute(ADMINS, {
  method: 'PATCH',
  path: '/admin/shipping-zones/{zoneId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      "Update a shipping zone; absent fields stay, `rates` replaces the zone's rates (matched by id, so a cart's chosen rate stays chosen). A zone the old shippingMethods setting wrote becomes this API's. Owner or admin",
    tags: TAGS,
    validate: { params: idParams('zoneId'), payload: updateZonePayload },
    response: { status: { 200: zoneResponse } },
    handler: adminHandler<ZoneParams, ZoneInput>(({ ctx, storeId, params, payload }) => updateZone(ctx, storeId, params.zoneId, payload))
  }
});

export const deleteZoneRoute = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/shipping-zones/{zoneId}',
  options: {
    description: 'Delete a shipping zone and its rates; carts that chose one of them see it dropped. Owner or admin',
    tags: TAGS,
    validate: { params: idParams('zoneId') },
    response: { status: { 200: zoneDeletedResponse } },
    handler: adminHandler<ZoneParams>(({ ctx, storeId, params }) => deleteZone(ctx, storeId, params.zoneId))
  }
});
