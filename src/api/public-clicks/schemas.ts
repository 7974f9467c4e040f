import Joi from 'joi';

export const clickParams = Joi.object({ clickToken: Joi.string().min(1).max(8000).required() });
