/**
 * The face of module email: transactional email settings, templates, the email outbox and delivery (through ctx.mail).
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { deliverEmail, logQueuedEmail } from './delivery.js';
export { emailModule } from './module.js';
export { emailInsert, enqueueEmail, sendTestEmail, sendTestTemplateEmail, type EnqueueEmailInput } from './outbox.js';
export { sealEmailMessage } from './sealed-message.js';
export { campaignSender, readEmailSettings, toEmailSettingsDto, verifyEmailProvider, writeEmailSettings, type CampaignSender, type EmailSettingsInput } from './settings.js';
export { checkedSmtpAddress } from './smtp-host-guard.js';
export { sampleData } from './templates.js';
export { MAILER_PROVIDERS } from '../../adapters/mail/index.js';
