/**
 * Discount codes and the rules of applying one; counts and gives back uses. It owns discounts.
 */
import type { Module } from '../../context.js';

export const discountsModule: Module = { name: 'discounts' };
