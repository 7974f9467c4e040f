import { getHealth } from './routes.js';

export const healthRoutes = [getHealth];
