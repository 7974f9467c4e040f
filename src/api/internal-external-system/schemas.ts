/** The link and sync answers are the admin group's resources: one schema (and OpenAPI component) each. */
export { linkResponse, syncResponse } from '../admin-external-system/schemas.js';

/** What the external system posts to ask for a backfill or end the link. */
export const externalTriggerBody = {
  description: 'The account the request is about, read as sent (the signature covers these exact bytes)',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: ['accountId'],
        properties: { accountId: { type: ['string', 'integer'], description: "the external system's account id of the link" } }
      }
    }
  }
};
