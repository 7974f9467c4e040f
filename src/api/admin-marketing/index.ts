import type { ServerRoute } from '@hapi/hapi';
import { campaignEventsRoute } from './campaign-events-route.js';
import { cancelCampaignRoute, createCampaignRoutes, getCampaignRoute, listCampaignsRoute, previewAudienceRoute } from './campaign-routes.js';
import { createListRoute, deleteListRoute, getListRoute, listListsRoute, replaceListRoute } from './list-routes.js';
import { createTemplateRoute, deleteTemplateRoute, getTemplateRoute, listTemplatesRoute, previewTemplateRoute, replaceTemplateRoute } from './template-routes.js';

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
  cancelCampaignRoute,
  campaignEventsRoute
];
