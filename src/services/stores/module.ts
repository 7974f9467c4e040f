/**
 * Stores, their settings and storefront tokens. It owns stores and storefront_tokens.
 */
import type { Module } from '../../context.js';

export const storesModule: Module = { name: 'stores' };
