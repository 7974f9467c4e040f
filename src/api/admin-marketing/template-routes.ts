import Joi from 'joi';
import { paginationMeta } from '../../platform/pagination.js';
import { ADMINS } from '../../platform/roles.js';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  previewTemplate,
  replaceTemplate,
  type TemplateInput
} from '../../services/marketing/index.js';
import { adminHandler } from '../handler.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { previewPayload, templateListResponse, templatePayload, templatePreviewResponse, templateResponse } from './schemas.js';

const tags = ['marketing'];
type TemplateParams = { templateId: string };

export const listTemplatesRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/templates',
  options: {
    description: 'List email templates (newest first); ?q= searches name and key',
    tags,
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(100).allow('') }) },
    response: { status: { 200: templateListResponse } },
    handler: adminHandler<{}, undefined, { limit: number; cursor?: string; q?: string }>(async ({ ctx, storeId, query }) => {
      const { limit, cursor, q } = query;
      const result = await listTemplates(ctx, storeId, { q }, { limit, cursor });
      return withMeta({ templates: result.templates }, paginationMeta(limit, result.nextCursor));
    })
  }
});

export const createTemplateRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/marketing/templates',
  options: {
    description: 'Create a Liquid email template { key?, name, subject, html, text }: 201 { template }; a syntax error is a 422 naming the field and line; include/render/layout or a limit reached with sample data is a 422 template_invalid naming the field; a taken key is a 409',
    tags,
    validate: { payload: templatePayload },
    response: { status: { 201: templateResponse } },
    plugins: { openapi: { errors: [409] } },
    handler: adminHandler<{}, TemplateInput>(async ({ ctx, storeId, payload, h }) => {
      const template = await createTemplate(ctx, storeId, payload);
      return h.response({ template }).code(201);
    })
  }
});

export const getTemplateRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/templates/{templateId}',
  options: {
    description: 'Get an email template',
    tags,
    validate: { params: idParams('templateId') },
    response: { status: { 200: templateResponse } },
    handler: adminHandler<TemplateParams>(async ({ ctx, storeId, params }) => ({ template: await getTemplate(ctx, storeId, params.templateId) }))
  }
});

export const replaceTemplateRoute = adminRoute(ADMINS, {
  method: 'PUT',
  path: '/admin/marketing/templates/{templateId}',
  options: {
    description: 'Replace an email template (same body as create; an absent key keeps the current one); a taken key is a 409',
    tags,
    validate: { params: idParams('templateId'), payload: templatePayload },
    response: { status: { 200: templateResponse } },
    plugins: { openapi: { errors: [409] } },
    handler: adminHandler<TemplateParams, TemplateInput>(async ({ ctx, storeId, params, payload }) => ({
      template: await replaceTemplate(ctx, storeId, params.templateId, payload)
    }))
  }
});

export const deleteTemplateRoute = adminRoute(ADMINS, {
  method: 'DELETE',
  path: '/admin/marketing/templates/{templateId}',
  options: {
    description: 'Delete an email template (campaigns keep the content they copied): 204',
    tags,
    validate: { params: idParams('templateId') },
    plugins: { openapi: { success: { status: 204, description: 'Deleted', content: null } } },
    handler: adminHandler<TemplateParams>(async ({ ctx, storeId, params, h }) => {
      await deleteTemplate(ctx, storeId, params.templateId);
      return h.response().code(204);
    })
  }
});

export const previewTemplateRoute = adminRoute(ADMINS, {
  method: 'POST',
  path: '/admin/marketing/templates/{templateId}/preview',
  options: {
    description: 'Render a template with sample data (customer, store, product, collection, discountCode, unsubscribeUrl), optionally overridden by `data`: { preview: { subject, html, text } }',
    tags,
    validate: { params: idParams('templateId'), payload: previewPayload },
    response: { status: { 200: templatePreviewResponse } },
    handler: adminHandler<TemplateParams, { data?: Record<string, unknown> } | null>(async ({ ctx, storeId, params, payload }) => ({
      preview: await previewTemplate(ctx, storeId, params.templateId, payload?.data)
    }))
  }
});
