/**
 * The external system's links, its upserts of products and customers (through those modules) and
 * the nightly sync. It owns external_system_links.
 */
import type { Module } from '../../context.js';

export const externalSystemModule: Module = { name: 'external-system' };
