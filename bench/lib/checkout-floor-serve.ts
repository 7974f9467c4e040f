import Hapi from '@hapi/hapi';
import Joi from 'joi';
import { createDb } from '../../src/db/knex.js';
import { PREPARED } from '../../src/db/prepared-statements.js';
import { transaction } from '../../src/db/transaction.js';

/**
 * Child process for the checkout floor: the five checkout requests on the same stack (hapi, joi
 * payload validation, knex, prepared statements, the service's transaction()), each doing the least
 * a checkout step can: create inserts one row; the four others lock the row and write it in a
 * transaction, as every real step after create must. No business rules, no pricing, no stock.
 * What it serves per second is a ceiling for the real checkout on this machine.
 */
const db = createDb(process.env.DATABASE_URL!, { max: 20 });
await db.raw('create table if not exists floor_carts (id uuid primary key default gen_random_uuid(), steps int not null default 0, email text)');

const LOCK = 'select id, steps from floor_carts where id = ? for update';
const STEP = 'update floor_carts set steps = steps + 1 where id = ? returning id, steps, email';

async function step(id: string) {
  return transaction(db, async (sql) => {
    await sql.raw(LOCK, [id]).options(PREPARED);
    return (await sql.raw(STEP, [id]).options(PREPARED)).rows[0];
  }, { pipelined: true });
}

const email = Joi.string().email({ tlds: false });
const id = { params: Joi.object({ id: Joi.string().guid().required() }) };
const server = Hapi.server({ port: 0, host: '127.0.0.1' });
server.route([
  {
    method: 'POST',
    path: '/api/v1/storefront/carts',
    options: { validate: { payload: Joi.object({ email }) } },
    handler: async (request, h) => {
      const result = await db.raw('insert into floor_carts (email) values (?) returning id, steps, email', [(request.payload as { email: string }).email]).options(PREPARED);
      return h.response({ data: { cart: result.rows[0] } }).code(201);
    }
  },
  {
    method: 'POST',
    path: '/api/v1/storefront/carts/{id}/items',
    options: { validate: { ...id, payload: Joi.object({ variantId: Joi.string().guid(), quantity: Joi.number().integer().min(1) }) } },
    handler: async (request) => ({ data: { cart: await step(request.params.id as string) } })
  },
  {
    method: 'POST',
    path: '/api/v1/storefront/carts/{id}/shipping-method',
    options: { validate: { ...id, payload: Joi.object({ shippingMethodId: Joi.string() }) } },
    handler: async (request) => ({ data: { cart: await step(request.params.id as string) } })
  },
  {
    method: 'POST',
    path: '/api/v1/storefront/carts/{id}/checkout-session',
    options: { validate: { ...id, payload: Joi.object({ email, shippingAddress: Joi.object().unknown() }) } },
    handler: async (request, h) => h.response({ data: { checkoutSession: await step(request.params.id as string) } }).code(201)
  },
  {
    method: 'POST',
    path: '/api/v1/storefront/checkout-sessions/{id}/confirm',
    options: { validate: { ...id, payload: Joi.object() } },
    handler: async (request) => ({ data: { order: await step(request.params.id as string) } })
  }
]);
await server.start();
process.stdout.write(`${JSON.stringify({ api: server.info.uri, bare: server.info.uri })}\n`);
process.on('SIGTERM', () => process.exit(0));
