import type { FormField, PageContent } from '../public/html-page.js';

/**
 * The pages behind the password-reset and invite links (`ADMIN_URL/reset-password?token=`,
 * `ADMIN_URL/accept-invite?token=`; ADMIN_URL defaults to APP_URL). Their forms post to the auth
 * API, which answers a browser with the pages below instead of JSON.
 */

export const RESET_PASSWORD_ACTION = '/api/v1/auth/reset-password';
export const ACCEPT_INVITE_ACTION = '/api/v1/auth/accept-invite';

const newPasswordFields = (): FormField[] => [
  { name: 'password', label: 'New password (8 characters or more)', type: 'password', autocomplete: 'new-password', minLength: 8, maxLength: 128, required: true },
  { name: 'passwordConfirmation', label: 'The same password again', type: 'password', autocomplete: 'new-password', minLength: 8, maxLength: 128, required: true }
];

export const invalidResetLinkPage = (): PageContent => ({
  title: 'This link is not valid',
  paragraphs: ['The password reset link is invalid, already used or expired (links work for one hour). Ask for a new one where you sign in.']
});

export const resetPasswordFormPage = (token: string, errors: string[] = []): PageContent => ({
  title: 'Choose a new password',
  paragraphs: ['Enter a new password for your account. Other devices signed in with the old one are signed out.'],
  errors,
  form: { action: RESET_PASSWORD_ACTION, button: 'Set the new password', fields: [{ name: 'token', label: 'token', type: 'hidden', value: token }, ...newPasswordFields()] }
});

export const passwordResetDonePage = (message: string): PageContent => ({ title: 'Your password has been reset', paragraphs: [message] });

export interface InviteAbout {
  store: { name: string };
  role: string;
  email: string;
  hasAccount: boolean;
}

export const invalidInviteLinkPage = (): PageContent => ({
  title: 'This invite link is not valid',
  paragraphs: ['The invite is invalid, already accepted, revoked or expired (invites work for seven days). Ask the store for a new one.']
});

export function acceptInviteFormPage(token: string, about: InviteAbout, errors: string[] = [], entered: { firstName?: string; lastName?: string } = {}): PageContent {
  const tokenField: FormField = { name: 'token', label: 'token', type: 'hidden', value: token };
  const invited = `You are invited to join ${about.store.name} as ${about.role} (${about.email}).`;
  if (about.hasAccount) {
    return {
      title: `Join ${about.store.name}`,
      paragraphs: [invited, 'You already have an account with this address: joining adds the store to it.'],
      errors,
      form: { action: ACCEPT_INVITE_ACTION, button: `Join ${about.store.name}`, fields: [tokenField] }
    };
  }
  return {
    title: `Join ${about.store.name}`,
    paragraphs: [invited, 'Create your account to join.'],
    errors,
    form: {
      action: ACCEPT_INVITE_ACTION,
      button: 'Create my account and join',
      fields: [
        tokenField,
        { name: 'firstName', label: 'First name', type: 'text', autocomplete: 'given-name', maxLength: 100, required: true, ...(entered.firstName ? { value: entered.firstName } : {}) },
        { name: 'lastName', label: 'Last name', type: 'text', autocomplete: 'family-name', maxLength: 100, required: true, ...(entered.lastName ? { value: entered.lastName } : {}) },
        ...newPasswordFields()
      ]
    }
  };
}

export const inviteAcceptedPage = (about: InviteAbout, email: string): PageContent => ({
  title: `You joined ${about.store.name}`,
  paragraphs: [`You are now ${/^[aeiou]/.test(about.role) ? 'an' : 'a'} ${about.role} of ${about.store.name}. Sign in as ${email} to get started.`]
});
