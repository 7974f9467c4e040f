import Joi from 'joi';

/** Reusable joi pieces. Strings are trimmed and emails lower-cased everywhere, as the contract says. */
export const id = () => Joi.string().uuid();
export const email = () => Joi.string().trim().lowercase().email({ tlds: false }).max(254);
export const text = (max = 255) => Joi.string().trim().max(max);
/** The largest amount an `integer` money column holds (21,474,836.47 in a two-decimal currency). */
export const MAX_MONEY = 2_147_483_647;
export const money = () => Joi.number().integer().min(0).max(MAX_MONEY);
export const slug = () => Joi.string().trim().lowercase().min(1).max(120).pattern(/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/, 'slug');

export const paginationQuery = {
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(1000)
};

/**
 * `?sort=` of an admin list: a field name for ascending, `-name` for descending (one syntax for
 * every list); anything else is a 422. Every sort ends with the id, so keyset pages stay exact.
 */
export const sortQuery = (values: string[], defaultSort: string, what: Record<string, string> = {}) =>
  Joi.string()
    .valid(...values)
    .default(defaultSort)
    .description(
      `Order of the list: a field ascending, or -field descending (${defaultSort} by default), ties broken by id in the same direction. ` +
        Object.entries(what)
          .map(([field, meaning]) => `${field}: ${meaning}`)
          .join('; ')
    );

export const idParams = (...names: string[]) => Joi.object(Object.fromEntries(names.map((name) => [name, id().required()])));

/** Response pieces: what the contract promises about timestamps and ids in every `data`. */
export const timestamp = () => Joi.date().iso();
export const idValue = () => Joi.string().uuid();
/** A response `data` object: the listed keys and no others, so the OpenAPI document is exact. */
export const responseObject = (keys: Record<string, Joi.Schema>) => Joi.object(keys).unknown(false);
/** An email address in a response (already lower-cased and checked on the way in). */
export const emailValue = () => Joi.string().email({ tlds: false });
