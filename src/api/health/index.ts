import { getHealth } from './get-health.js';

export const healthRoutes = [getHealth];
