import Joi from 'joi';

export const onboardingPayload = Joi.object({
  hostname: Joi.string().trim().lowercase().min(1).max(253).required()
});
