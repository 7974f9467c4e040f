/**
 * The face of module marketing: campaigns, lists, templates, sending, clicks.
 * Other modules, use cases, routes and workers import only this file; the rest is private.
 */
export { previewAudience, type Audience } from './audience.js';
export { CAMPAIGN_TYPES, cancelCampaign, createCampaign, getCampaign, getCampaignsByIds, listCampaigns, type CampaignInput, type CampaignType } from './campaigns.js';
export { followClick } from './clicks.js';
export { createList, deleteList, getList, listLists, replaceList, type ListInput } from './lists.js';
export { marketingModule } from './module.js';
export { abandonBatch, sendCampaignBatch } from './send-batch.js';
export { failCampaign, startCampaign } from './start.js';
export { sweepStuckCampaigns } from './sweep.js';
export { createTemplate, deleteTemplate, getTemplate, listTemplates, previewTemplate, replaceTemplate, type TemplateInput } from './templates.js';
