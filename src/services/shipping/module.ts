/**
 * Shipping zones and rates. It owns shipping_zones and shipping_rates; it sits with the lowest
 * modules (it needs none but audit), so stores (the old `shippingMethods` setting writes zones through
 * replaceSettingZones) and checkout (carts price their shipping with the rules) can use it.
 */
import type { Module } from '../../context.js';

export const shippingModule: Module = { name: 'shipping' };
