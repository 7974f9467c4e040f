/**
 * Admin API keys: created, listed, revoked, checked on each request. It owns api_keys.
 */
import type { Module } from '../../context.js';

export const apiKeysModule: Module = { name: 'api-keys' };
