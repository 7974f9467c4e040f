import type { ResponseToolkit, Request } from '@hapi/hapi';
import { receiveExternalTrigger } from '../../services/external-system/index.js';
import { externalTriggerBody, linkResponse, syncResponse } from './schemas.js';
import { RAW_BODY } from '../internal-hosted-domain/routes.js';
import { SIGNED_HEADERS } from '../internal-hosted-domain/schemas.js';
import { publicRoute } from '../route-helpers.js';

const handlerFor = (action: 'backfill' | 'disconnect') => async (request: Request, h: ResponseToolkit) => {
  const body = Buffer.isBuffer(request.payload) ? request.payload : Buffer.alloc(0);
  const result = await receiveExternalTrigger(request.server.app.ctx, action, request.headers as Record<string, string | undefined>, body);
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
    handler: handlerFor('backfill')
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
    handler: handlerFor('disconnect')
  }
});
