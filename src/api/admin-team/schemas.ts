import Joi from 'joi';
import { email } from '../schemas.js';

export const createInvitePayload = Joi.object({
  email: email().required(),
  role: Joi.string().valid('owner', 'admin', 'staff').required()
});

export const acceptInvitePayload = Joi.object({
  token: Joi.string().trim().min(1).max(200).required(),
  firstName: Joi.string().trim().min(1).max(100),
  lastName: Joi.string().trim().min(1).max(100),
  password: Joi.string().min(8).max(128)
});
