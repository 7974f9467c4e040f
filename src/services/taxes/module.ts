import type { Module } from '../../context.js';

/**
 * Taxes (issue #34, docs/taxes.md): owns tax_regions, the tax arithmetic (compute.ts: one rounding
 * rule, per line, half up), the provider port (providers.ts: the built-in rate tables and Stripe Tax)
 * and the tax report. Checkout asks it for a cart's tax lines, orders for a refund's share of the tax.
 * Contributes nothing to the registry.
 */
export const taxesModule: Module = { name: 'taxes' };
