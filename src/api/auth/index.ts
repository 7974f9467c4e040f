import type { ServerRoute } from '@hapi/hapi';
import { getMe, postForgotPassword, postLogin, postResetPassword, postSignup } from './routes.js';

export const authRoutes: ServerRoute[] = [postSignup, postLogin, getMe, postForgotPassword, postResetPassword];
