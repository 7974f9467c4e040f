import Joi from 'joi';
import { JOB_STATUSES } from '../../services/job-history/index.js';
import { idValue, responseObject, text, timestamp } from '../schemas.js';

const country = () => Joi.string().trim().uppercase().pattern(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2');
/** 'CA' or 'US-CA' (ISO 3166-2); stored without the country. */
const region = () => Joi.string().trim().uppercase().pattern(/^([A-Z]{2}-)?[A-Z0-9]{1,3}$/, 'ISO 3166-2 subdivision');
const rate = () => Joi.number().integer().min(0).max(10_000).description('basis points: 2000 = 20 %');
const classRates = () =>
  Joi.object()
    .pattern(Joi.string().trim().min(1).max(64).pattern(/^[a-z0-9_-]+$/, 'tax class'), rate())
    .max(50)
    .description('rates per variant tax class, e.g. { "reduced": 700, "zero": 0 }; a variant without a class (or of a class not listed) pays `rate`');

export const taxRegionParams = Joi.object({ regionId: Joi.string().uuid().required() });

export const createTaxRegionPayload = Joi.object({
  country: country().required(),
  region: region().allow(null),
  name: text(100).min(1).required().description('shown on tax lines: "CA sales tax", "VAT"'),
  rate: rate().required(),
  classRates: classRates(),
  taxShipping: Joi.boolean().default(false).description('charge this region’s default rate on shipping')
});

export const updateTaxRegionPayload = Joi.object({
  country: country(),
  region: region().allow(null),
  name: text(100).min(1),
  rate: rate(),
  classRates: classRates(),
  taxShipping: Joi.boolean()
}).min(1);

export const listTaxRegionsQuery = { country: country() };

export const taxRegionResource = responseObject({
  id: idValue().required(),
  country: Joi.string().length(2).required(),
  region: Joi.string().allow(null).required().description("'US-CA'; null for the country's own entry (a region's entry beats it)"),
  name: Joi.string().required(),
  rate: Joi.number().integer().required(),
  classRates: Joi.object().pattern(Joi.string(), Joi.number().integer()).required(),
  taxShipping: Joi.boolean().required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('TaxRegion');

export const taxRegionResponse = responseObject({ taxRegion: taxRegionResource.required() });
export const taxRegionListResponse = responseObject({ taxRegions: Joi.array().items(taxRegionResource).required() });

export const taxReportPayload = Joi.object({
  from: Joi.string().pattern(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM').description('first month (UTC), inclusive'),
  to: Joi.string().pattern(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM').description('last month (UTC), inclusive')
}).allow(null);

export const taxReportJobResponse = responseObject({
  job: responseObject({
    id: idValue().required(),
    type: Joi.string().valid('taxes.report').required(),
    status: Joi.string().valid(...JOB_STATUSES).required(),
    progress: Joi.object().unknown(true).required(),
    result: Joi.object().unknown(true).allow(null).required(),
    error: Joi.string().allow(null).required(),
    createdAt: timestamp().required(),
    startedAt: timestamp().allow(null).required(),
    finishedAt: timestamp().allow(null).required()
  })
    .label('TaxReportJob')
    .required()
});
