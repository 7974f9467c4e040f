/** The link and sync answers are the admin group's resources: one schema (and OpenAPI component) each. */
export { linkResponse, syncResponse } from '../admin-external-system/schemas.js';
