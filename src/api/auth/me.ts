import { currentUser } from '../../services/auth.js';
import { userIdOf } from '../plugins/auth.js';
import { userRoute } from '../route-helpers.js';

export const getMe = userRoute({
  method: 'GET',
  path: '/auth/me',
  options: {
    description: 'The signed-in user and their store memberships',
    tags: ['auth'],
    handler: async (request) => currentUser(request.server.app.ctx, userIdOf(request))
  }
});
