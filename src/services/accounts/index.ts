/**
 * The face of module accounts: users, sign-in and tokens, password resets, a store's team (members, invites).
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { acceptInvite, describeInvite, type AcceptInviteInput } from './accept.js';
export { JWT_ALGORITHM } from './access-tokens.js';
export { assertCredentialFailuresUnderLimit, countCredentialFailure } from './auth-limits.js';
export { currentUser, limitAuthAttempt, liveMemberships, login, signup, userForAccessToken } from './auth.js';
export { INVITE_STATUSES, createInvite, resendInvite } from './invites.js';
export { changeMemberRole, listTeam, revokeMember } from './members.js';
export { accountsModule } from './module.js';
export { forgotPassword, isResetTokenLive, resetPassword, sendPasswordReset } from './password-reset.js';
export { findMembership } from './users.js';
