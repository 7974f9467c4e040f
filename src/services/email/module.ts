/**
 * Transactional email: settings, templates, the outbox of emails and their delivery through the
 * mail port (ctx.mail). It owns email_log and store_email_settings.
 */
import type { Module } from '../../context.js';

export const emailModule: Module = { name: 'email' };
