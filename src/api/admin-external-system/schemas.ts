import Joi from 'joi';

const link = {
  baseUrl: Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(2000).required(),
  apiKey: Joi.string().trim().min(1).max(4000).required()
};

export const previewPayload = Joi.object(link);
export const connectPayload = Joi.object({ ...link, syncProducts: Joi.boolean().default(true), syncCustomers: Joi.boolean().default(true) });
