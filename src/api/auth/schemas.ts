import Joi from 'joi';
import { ROLES } from '../../platform/roles.js';
import { emailValue, idValue, responseObject } from '../schemas.js';

export const userResource = responseObject({
  id: idValue().required(),
  email: emailValue().required(),
  firstName: Joi.string().required(),
  lastName: Joi.string().required()
}).label('User');

/** A store the user belongs to, and their role there. */
export const membershipResource = responseObject({
  storeId: idValue().required(),
  storeName: Joi.string().required(),
  storeSlug: Joi.string().required(),
  role: Joi.string().valid(...ROLES).required()
}).label('Membership');

const memberships = () => Joi.array().items(membershipResource).required();
const accessToken = () => Joi.string().required().description('JWT (HS256) for Authorization: Bearer');

export const signupResponse = responseObject({
  user: userResource.required(),
  store: responseObject({ id: idValue().required(), name: Joi.string().required(), slug: Joi.string().required() }).label('StoreRef').required(),
  memberships: memberships(),
  storefrontToken: Joi.string().pattern(/^swsf_[A-Za-z0-9_-]{32,}$/, 'storefront token').required().description('the default storefront token secret, shown only here'),
  accessToken: accessToken()
});

/** What login and accepting an invite answer. */
export const sessionResponse = responseObject({ user: userResource.required(), memberships: memberships(), accessToken: accessToken() });
export const meResponse = responseObject({ user: userResource.required(), memberships: memberships() });
export const messageResponse = responseObject({ message: Joi.string().required() });

export const resetPasswordPayload = Joi.object({
  token: Joi.string().trim().min(1).max(200).required(),
  password: Joi.string().min(8).max(128).required(),
  passwordConfirmation: Joi.string()
    .valid(Joi.ref('password'))
    .messages({ 'any.only': 'the two passwords differ' })
    .description('optional; when sent, must equal password (the reset page sends it)')
});
