import { getCampaign } from '../../services/marketing/index.js';
import { ADMINS } from '../../services/accounts/index.js';
import { eventStream, eventStreamSuccess } from '../event-stream.js';
import { tenantOf } from '../plugins/auth.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';

const LIVE = new Set(['scheduled', 'sending']);

/** A campaign's live counts as server-sent events (src/api/event-stream.ts), with the admin API's own auth. */
export const campaignEventsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/campaigns/{campaignId}/events',
  options: {
    description:
      'Server-sent events (text/event-stream) of a campaign: `progress` with `{ campaign }` whenever its counts or status change (the first at once), then `end` once sent, failed or cancelled; same auth as the admin API (read it with fetch)',
    tags: ['marketing'],
    validate: { params: idParams('campaignId') },
    plugins: { openapi: { success: eventStreamSuccess('campaign', 'Campaign') } },
    handler: (request, h) => {
      const ctx = request.server.app.ctx;
      const storeId = tenantOf(request).storeId;
      return eventStream(request, h, {
        name: 'campaign',
        read: () => getCampaign(ctx, storeId, request.params.campaignId as string),
        ended: (campaign) => !LIVE.has(campaign.status)
      });
    }
  }
});
