import type { ServerRoute } from '@hapi/hapi';
import { postForgotPassword } from './forgot-password.js';
import { postLogin } from './login.js';
import { getMe } from './me.js';
import { postResetPassword } from './reset-password.js';
import { postSignup } from './signup.js';

export const authRoutes: ServerRoute[] = [postSignup, postLogin, getMe, postForgotPassword, postResetPassword];
