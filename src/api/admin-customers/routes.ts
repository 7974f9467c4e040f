import Joi from 'joi';
import {
  createCustomer,
  deleteCustomer,
  getCustomer,
  listCustomers,
  updateCustomer,
  type CustomerFilters,
  type CustomerPatch,
  type NewCustomer
} from '../../services/customers/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS, ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { createCustomerPayload, customerDetailResponse, customerListResponse, customerResponse, listCustomersQuery, updateCustomerPayload } from './schemas.js';
import { clientIp } from '../client-ip.js';

type CustomerParams = { customerId: string };

export const listCustomersRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/customers',
  options: {
    description:
      'List customers, newest first (created, then id, descending: customers imported in one batch share their creation time) unless sort says otherwise; q matches anywhere in the email, first, last or full name (trigram index)',
    tags: ['customers'],
    validate: { query: Joi.object({ ...paginationQuery, ...listCustomersQuery }) },
    response: { status: { 200: customerListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string } & CustomerFilters>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, ...filters } = query;
      const result = await listCustomers(ctx, storeId, filters, { limit, cursor });
      return withMeta({ customers: result.customers }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const getCustomerRoute = adminRoute(ANY_MEMBER, {
  method: 'GET',
  path: '/admin/customers/{customerId}',
  options: {
    description: 'Get a customer with their 5 most recent orders (newest first)',
    tags: ['customers'],
    validate: { params: idParams('customerId') },
    response: { status: { 200: customerDetailResponse } },
    handler: adminHandler<CustomerParams>(({ ctx, storeId, params }) => getCustomer(ctx, storeId, params.customerId))
  }
});

export const updateCustomerRoute = adminRoute(ANY_MEMBER, {
  method: 'PATCH',
  path: '/admin/customers/{customerId}',
  options: {
    plugins: { openapi: { errors: [409] } },
    description: 'Update a customer (partial); an email another customer has gets 409 email_taken',
    tags: ['customers'],
    validate: { params: idParams('customerId'), payload: updateCustomerPayload },
    response: { status: { 200: customerResponse } },
    handler: adminHandler<CustomerParams, CustomerPatch>(async ({ ctx, storeId, params, payload, request }) => {
      const patch = Object.fromEntries(Object.entries(payload).map(([key, value]) => [key, value === '' ? null : value])) as CustomerPatch;
      const customer = await updateCustomer(ctx, storeId, params.customerId, patch, { source: 'admin', ip: clientIp(request) });
      return { customer };
    })
  }
});

/** Empty optional text is no value (a form's cleared field). */
const blankToNull = <T extends object>(input: T): T =>
  Object.fromEntries(Object.entries(input).map(([key, value]) => [key, value === '' ? null : value])) as T;

export const createCustomerRoute = adminRoute(ANY_MEMBER, {
  method: 'POST',
  path: '/admin/customers',
  options: {
    plugins: { openapi: { errors: [409] } },
    description:
      'Create a customer by hand: 201 { customer }; an email the store already has gets 409 email_taken. emailMarketing other than not_subscribed is recorded with source admin (consent the operator vouches for)',
    tags: ['customers'],
    validate: { payload: createCustomerPayload },
    response: { status: { 201: customerResponse } },
    handler: adminHandler<Record<string, never>, NewCustomer>(async ({ ctx, storeId, payload, request, h }) => {
      const customer = await createCustomer(ctx, storeId, blankToNull(payload), { source: 'admin', ip: clientIp(request) });
      return h.response({ customer }).code(201);
    })
  }
});

export const deleteCustomerRoute = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/customers/{customerId}',
  options: {
    plugins: { openapi: { success: { status: 204, description: 'Deleted', content: null } } },
    description:
      "Delete a customer: 204. Their orders stay (no longer linked to a customer); their list memberships go. Another store's customer is 404. Owner or admin",
    tags: ['customers'],
    validate: { params: idParams('customerId') },
    handler: adminHandler<{ customerId: string }>(async ({ ctx, storeId, params, h }) => {
      await deleteCustomer(ctx, storeId, params.customerId);
      return h.response().code(204);
    })
  }
});
