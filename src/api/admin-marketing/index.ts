import type { ServerRoute } from '@hapi/hapi';
import { cancelCampaignRoute, createCampaignRoutes, getCampaignRoute, listCampaignsRoute, previewAudienceRoute } from './campaigns.js';
import { createListRoute, deleteListRoute, getListRoute, listListsRoute, replaceListRoute } from './lists.js';
import { createTemplateRoute, deleteTemplateRoute, getTemplateRoute, listTemplatesRoute, previewTemplateRoute, replaceTemplateRoute } from './templates.js';

export const adminMarketingRoutes: ServerRoute[] = [
  listTemplatesRoute,
  createTemplateRoute,
  getTemplateRoute,
  replaceTemplateRoute,
  deleteTemplateRoute,
  previewTemplateRoute,
  listListsRoute,
  createListRoute,
  getListRoute,
  replaceListRoute,
  deleteListRoute,
  previewAudienceRoute,
  ...createCampaignRoutes,
  listCampaignsRoute,
  getCampaignRoute,
  cancelCampaignRoute
];
