import Joi from 'joi';
import {
  getCustomer,
  listCustomers,
  updateCustomer,
  type CustomerFilters,
  type CustomerPatch
} from '../../services/customers/index.js';
import { paginationMeta } from '../../platform/pagination.js';
import { ANY_MEMBER } from '../../platform/roles.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { customerDetailResponse, customerListResponse, customerResponse, listCustomersQuery, updateCustomerPayload } from './schemas.js';
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
