import { receiveExternalTrigger } from '../../services/external-system/index.js';
import { externalTriggerBody, linkResponse, syncResponse } from './schemas.js';
import { RAW_BODY } from '../internal-hosted-domain/routes.js';
import { SIGNED_HEADERS } from '../internal-hosted-domain/schemas.js';
import { publicHandler, type Call } from '../handler.js';
import { publicRoute } from '../route-helpers.js';

/** The raw body (what was signed) and the signature headers go to the service as they came. */
const receiveTrigger =
  (action: 'backfill' | 'disconnect') =>
  async ({ ctx, payload, request, h }: Call<{}, Buffer | null, {}>) => {
    const body = Buffer.isBuffer(payload) ? payload : Buffer.alloc(0);
    const result = await receiveExternalTrigger(ctx, action, request.headers as Record<string, string | undefined>, body);
    return h.response(result.body).code(result.status);
  };

const SIGNED = 'Signed with the link\'s webhookSecret: x-webhook-timestamp and x-webhook-signature = sha256=<hex HMAC of "timestamp.body">; 5-minute tolerance, replays refused (400).';

export const backfillTriggerRoute = publicRoute({
  method: 'POST',
  path: '/internal/external-system/backfill',
  options: {
    description: `The external system asks for a backfill: body { accountId }; 202 { job }; 409 once the link is disconnected. ${SIGNED}`,
    tags: ['internal'],
    plugins: { openapi: { requestBody: externalTriggerBody, headers: SIGNED_HEADERS, errors: [409] } },
    payload: RAW_BODY,
    response: { status: { 202: syncResponse } },
    handler: publicHandler(receiveTrigger('backfill'))
  }
});

export const disconnectTriggerRoute = publicRoute({
  method: 'POST',
  path: '/internal/external-system/disconnect',
  options: {
    description: `The external system ends the link: body { accountId }; 200 { link }. ${SIGNED}`,
    tags: ['internal'],
    plugins: { openapi: { requestBody: externalTriggerBody, headers: SIGNED_HEADERS } },
    payload: RAW_BODY,
    response: { status: { 200: linkResponse } },
    handler: publicHandler(receiveTrigger('disconnect'))
  }
});
