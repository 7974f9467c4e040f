/**
 * People and their access: users, sign-in and sessions, password resets, a store's team (members,
 * invites). It owns users, memberships, store_invites and password_resets.
 */
import type { Module } from '../../context.js';

export const accountsModule: Module = { name: 'accounts' };
