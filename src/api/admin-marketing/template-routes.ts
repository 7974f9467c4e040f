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
import { tenantOf } from '../plugins/auth.js';
import { withMeta } from '../plugins/envelope.js';
import { adminRoute } from '../route-helpers.js';
import { idParams, paginationQuery } from '../schemas.js';
import { previewPayload, templateListResponse, templatePayload, templatePreviewResponse, templateResponse } from './schemas.js';

const tags = ['marketing'];

export const listTemplatesRoute = adminRoute(ADMINS, {
  method: 'GET',
  path: '/admin/marketing/templates',
  options: {
    description: 'List email templates (newest first); ?q= searches name and key',
    tags,
    validate: { query: Joi.object({ ...paginationQuery, q: Joi.string().trim().max(100).allow('') }) },
    response: { status: { 200: templateListResponse } },
    handler: async (request) => {
      const { limit, cursor, q } = request.query as { limit: number; cursor?: string; q?: string };
      const result = await listTemplates(request.server.app.ctx, tenantOf(request).storeId, { q }, { limit, cursor });
      return withMeta({ templates: result.templates }, paginationMeta(limit, result.nextCursor));
    }
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
    handler: async (request, h) => {
      const template = await createTemplate(request.server.app.ctx, tenantOf(request).storeId, request.payload as TemplateInput);
      return h.response({ template }).code(201);
    }
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
    handler: async (request) => ({ template: await getTemplate(request.server.app.ctx, tenantOf(request).storeId, request.params.templateId as string) })
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
    handler: async (request) => ({
      template: await replaceTemplate(request.server.app.ctx, tenantOf(request).storeId, request.params.templateId as string, request.payload as TemplateInput)
    })
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
    handler: async (request, h) => {
      await deleteTemplate(request.server.app.ctx, tenantOf(request).storeId, request.params.templateId as string);
      return h.response().code(204);
    }
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
    handler: async (request) => {
      const data = (request.payload as { data?: Record<string, unknown> } | null)?.data;
      return { preview: await previewTemplate(request.server.app.ctx, tenantOf(request).storeId, request.params.templateId as string, data) };
    }
  }
});
