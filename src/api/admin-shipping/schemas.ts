import Joi from 'joi';
import { MAX_RATES, RATE_TYPES, ZONE_SOURCES } from '../../services/shipping/index.js';
import { money, responseObject, text, timestamp, idValue } from '../schemas.js';

const country = () => Joi.string().trim().uppercase().pattern(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2');
/** ISO 3166-2: `US-CA`, or the subdivision part alone (`CA`), matched against the address's region. */
const region = () => Joi.string().trim().uppercase().pattern(/^([A-Z]{2}-)?[A-Z0-9]{1,3}$/, 'ISO 3166-2 subdivision (US-CA or CA)');
/** `90210`, `9*` / `SW1*` (`*` any characters), or `90000..96199` (a range of digits, bounds of one length). */
const postcode = () =>
  Joi.string()
    .trim()
    .uppercase()
    .max(20)
    .custom((value: string, helpers) => {
      const range = /^(\d+)\.\.(\d+)$/.exec(value);
      if (range) {
        if (range[1]!.length !== range[2]!.length || Number(range[1]) > Number(range[2])) return helpers.error('any.invalid');
        return value;
      }
      return /^[A-Z0-9*][A-Z0-9 *-]*$/.test(value) ? value : helpers.error('any.invalid');
    }, 'postcode pattern')
    .messages({ 'any.invalid': '{{#label}} must be a postcode, a pattern with * (9*), or a range of digits with bounds of one length (90000..96199)' });

const band = Joi.object({
  upTo: Joi.number().integer().min(0).max(2_147_483_647).allow(null).required().description('grams (weight rates) or minor units (subtotal rates), inclusive; null: no upper limit'),
  price: money().required()
});

const estimate = Joi.object({
  minDays: Joi.number().integer().min(0).max(365),
  maxDays: Joi.number().integer().min(0).max(365).when('minDays', { is: Joi.exist(), then: Joi.number().min(Joi.ref('minDays')) }),
  text: text(200).min(1)
})
  .min(1)
  .description('delivery estimate: days, a text, or both');

const rate = Joi.object({
  id: text(100).min(1).pattern(/^[A-Za-z0-9_-]+$/, 'letters, digits, - and _').description('kept when given (a cart that chose it keeps it); new rates get one'),
  name: text(120).min(1).required(),
  type: Joi.string().valid(...RATE_TYPES).required(),
  price: money().allow(null).description('flat and pickup rates (pickup: default 0)'),
  bands: Joi.array().items(band).min(1).max(50).allow(null).description('weight and subtotal rates: [{ upTo, price }] rising, the last upTo null'),
  freeOver: money().allow(null).description('free at or over this merchandise subtotal (minor units, before discounts)'),
  estimate: estimate.allow(null)
});

const zoneFields = {
  name: text(120).min(1),
  countries: Joi.array().items(country()).max(250).unique().description('ISO 3166-1 alpha-2; empty: every country'),
  regions: Joi.array().items(region()).max(500).unique().allow(null).description('ISO 3166-2 (US-CA or CA); empty: all of each country'),
  postcodes: Joi.array().items(postcode()).max(500).unique().allow(null).description('exact, prefix (9*) or range (90000..96199)'),
  rates: Joi.array().items(rate).max(MAX_RATES)
};

export const createZonePayload = Joi.object({
  ...zoneFields,
  name: zoneFields.name.required(),
  countries: zoneFields.countries.required(),
  rates: zoneFields.rates.required()
}).label('ShippingZoneCreate');

export const updateZonePayload = Joi.object(zoneFields).min(1).label('ShippingZoneUpdate');

const bandResource = responseObject({ upTo: Joi.number().integer().allow(null).required(), price: Joi.number().integer().required() }).label('ShippingRateBand');

export const estimateResource = responseObject({
  minDays: Joi.number().integer(),
  maxDays: Joi.number().integer(),
  text: Joi.string()
}).label('ShippingEstimate');

export const rateResource = responseObject({
  id: Joi.string().required(),
  name: Joi.string().required(),
  type: Joi.string().valid(...RATE_TYPES).required(),
  price: Joi.number().integer().allow(null).required(),
  bands: Joi.array().items(bandResource).allow(null).required(),
  freeOver: Joi.number().integer().allow(null).required(),
  estimate: estimateResource.allow(null).required()
}).label('ShippingRate');

export const zoneResource = responseObject({
  id: idValue().required(),
  name: Joi.string().required(),
  countries: Joi.array().items(Joi.string()).required(),
  regions: Joi.array().items(Joi.string()).required(),
  postcodes: Joi.array().items(Joi.string()).required(),
  position: Joi.number().integer().required(),
  source: Joi.string().valid(...ZONE_SOURCES).required().description('store_setting: written by the old shippingMethods store setting (which replaces exactly these); zones: this API'),
  rates: Joi.array().items(rateResource).required(),
  createdAt: timestamp().required(),
  updatedAt: timestamp().required()
}).label('ShippingZone');

export const zoneResponse = responseObject({ zone: zoneResource.required() });
export const zoneListResponse = responseObject({ zones: Joi.array().items(zoneResource).required() });
export const zoneDeletedResponse = responseObject({ deleted: Joi.boolean().valid(true).required(), id: idValue().required() });
