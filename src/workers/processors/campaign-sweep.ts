import { campaignSweepJob } from '../../jobs/campaign-sweep.js';
import { sweepStuckCampaigns } from '../../services/marketing/index.js';
import { processorOf } from '../processor.js';

export const campaignSweepProcessor = processorOf(campaignSweepJob, (ctx) => sweepStuckCampaigns(ctx));
