import Joi from 'joi';
import { ROLES } from '../../services/roles.js';
import { INVITE_STATUSES } from '../../services/team/invites.js';
import { email, emailValue, idValue, responseObject, timestamp } from '../schemas.js';

export const createInvitePayload = Joi.object({
  email: email().required(),
  role: Joi.string().valid('owner', 'admin', 'staff').required()
});

export const acceptInvitePayload = Joi.object({
  token: Joi.string().trim().min(1).max(200).required(),
  firstName: Joi.string().trim().min(1).max(100),
  lastName: Joi.string().trim().min(1).max(100),
  password: Joi.string().min(8).max(128),
  passwordConfirmation: Joi.string()
    .valid(Joi.ref('password'))
    .messages({ 'any.only': 'the two passwords differ' })
    .description('optional; when sent, must equal password (the invite page sends it)')
});

export const memberResource = responseObject({
  userId: idValue().required(),
  email: emailValue().required(),
  firstName: Joi.string().required(),
  lastName: Joi.string().required(),
  role: Joi.string().valid(...ROLES).required(),
  joinedAt: timestamp().required()
}).label('TeamMember');

export const inviteResource = responseObject({
  id: idValue().required(),
  email: emailValue().required(),
  role: Joi.string().valid(...ROLES).required(),
  status: Joi.string().valid(...INVITE_STATUSES).required(),
  expiresAt: timestamp().required(),
  createdAt: timestamp().required()
}).label('TeamInvite');

export const teamResponse = responseObject({
  members: Joi.array().items(memberResource).required(),
  invites: Joi.array().items(inviteResource).required().description('invites not yet accepted or revoked')
});
export const inviteResponse = responseObject({ invite: inviteResource.required() });
export const changeRolePayload = Joi.object({ role: Joi.string().valid(...ROLES).required() });
export const memberResponse = responseObject({ member: memberResource.required() });
export const revokedMemberResponse = responseObject({
  member: responseObject({
    userId: idValue().required(),
    role: Joi.string().valid(...ROLES).required(),
    revoked: Joi.boolean().valid(true).required()
  }).label('RevokedMember').required()
});
