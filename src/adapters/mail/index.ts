export { MAILER_PROVIDERS, type Mail, type Mailer, type MailTransport, type OutgoingMail, type SentMail, type SmtpSettings } from './port.js';
export { closeCampaignTransports, createMail, platformDefaultMailer } from './nodemailer.js';
