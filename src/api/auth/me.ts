import { currentUser } from '../../services/auth.js';
import { userIdOf } from '../plugins/auth.js';
import { userRoute } from '../route-helpers.js';
import { meResponse } from './schemas.js';

export const getMe = userRoute({
  method: 'GET',
  path: '/auth/me',
  options: {
    description: 'The signed-in user and their store memberships',
    tags: ['auth'],
    response: { status: { 200: meResponse } },
    handler: async (request) => currentUser(request.server.app.ctx, userIdOf(request))
  }
});
