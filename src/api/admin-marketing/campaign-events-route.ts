import { getCampaignsByIds } from '../../services/marketing/index.js';
import { ADMINS } from '../../platform/roles.js';
import { eventStream, eventStreamSuccess, type EventStreamTopic } from '../event-stream.js';
import { adminHandler } from '../handler.js';
import { adminRoute } from '../route-helpers.js';
import { idParams } from '../schemas.js';

const LIVE = new Set(['scheduled', 'sending']);

type CampaignDto = Awaited<ReturnType<typeof getCampaignsByIds>> extends Map<string, infer T> ? T : never;

/** Campaigns as the event streams follow them: every stream of a store read together on each poll. */
const CAMPAIGNS: EventStreamTopic<CampaignDto> = {
  name: 'campaign',
  label: 'Campaign',
  readMany: getCampaignsByIds,
  ended: (campaign) => !LIVE.has(campaign.status)
};

/** A campaign's live counts as server-sent events (src/api/event-stream.ts), with the admin API's own auth. */
export const campaignEventsRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/campaigns/{campaignId}/events',
  options: {
    description:
      'Server-sent events (text/event-stream) of a campaign: `progress` with `{ campaign }` whenever its counts or status change (the first at once), then `end` once sent, failed or cancelled; same auth as the admin API (read it with fetch)',
    tags: ['marketing'],
    validate: { params: idParams('campaignId') },
    plugins: { openapi: { success: eventStreamSuccess('campaign', 'Campaign'), errors: [429] } },
    handler: adminHandler<{ campaignId: string }>(({ params, request, h }) => eventStream(request, h, CAMPAIGNS, params.campaignId))
  }
});
