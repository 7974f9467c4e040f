import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.js';
import { containsPattern } from '../../db/like-patterns.js';
import { conflict, notFound, uniqueViolation, validationFailed } from '../../errors.js';
import { sampleData } from '../email/index.js';
import { keysetPage, type PageRequest } from '../../platform/pagination.js';
import { checkContentOnSave, compileContent, renderCompiledSync, templateInvalid } from '../../platform/liquid/email-content.js';
import { TemplateProblem } from '../../platform/liquid/sandboxed-engine.js';
import { withTransaction } from '../../platform/with-transaction.js';

export interface TemplateInput {
  key?: string;
  name: string;
  subject: string;
  html?: string;
  text?: string;
}

interface TemplateRow {
  id: string;
  storeId: string;
  key: string;
  name: string;
  subject: string;
  html: string;
  text: string;
  createdAt: Date;
  updatedAt: Date;
}

export const toTemplateDto = (row: TemplateRow) => ({
  id: row.id,
  key: row.key,
  name: row.name,
  subject: row.subject,
  html: row.html,
  text: row.text,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
});

const keyTaken = () => conflict('conflict', 'A template with this key already exists', [{ path: 'key', message: 'key is taken' }]);

/** A key from the name when none is given ("Spring sale!" → "spring_sale"). */
function keyFromName(name: string): string {
  const base = name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60);
  return base || 'template';
}

/** The columns to save, once the content parses and renders within the limits with sample data. */
async function columnsFrom(ctx: AppContext, storeId: string, input: TemplateInput) {
  const content = { subject: input.subject, html: input.html ?? '', text: input.text ?? '' };
  checkContentOnSave(content, marketingSampleData(await storeName(ctx, storeId), ctx.config.appUrl));
  return { name: input.name, ...content };
}

async function storeName(ctx: AppContext, storeId: string): Promise<string> {
  return ((await ctx.db('stores').where({ id: storeId }).first('name')) as { name: string } | undefined)?.name ?? '';
}

export async function listTemplates(ctx: AppContext, storeId: string, filters: { q?: string }, page: PageRequest) {
  const query = ctx.db('marketingTemplates').where({ storeId });
  if (filters.q) query.where((b) => b.whereRaw('lower(name) like ?', [containsPattern(filters.q!)]).orWhereRaw('key like ?', [containsPattern(filters.q!)]));
  const result = await keysetPage<TemplateRow>(query, { column: 'createdAt', direction: 'desc' }, page);
  return { templates: result.items.map(toTemplateDto), nextCursor: result.nextCursor };
}

export async function getTemplate(ctx: AppContext, storeId: string, templateId: string) {
  const row: TemplateRow | undefined = await ctx.db('marketingTemplates').where({ storeId, id: templateId }).first();
  if (!row) throw notFound('Template');
  return toTemplateDto(row);
}

export async function createTemplate(ctx: AppContext, storeId: string, input: TemplateInput) {
  const columns = await columnsFrom(ctx, storeId, input);
  // Without an explicit key, a taken name-derived key gets a short suffix instead of a 409.
  const keys = input.key ? [input.key] : [keyFromName(input.name), `${keyFromName(input.name)}_${randomBytes(3).toString('hex')}`];
  for (const [attempt, key] of keys.entries()) {
    try {
      // In a transaction, so that an admin request's audit entry commits with the template.
      const [row] = await withTransaction(ctx, async (trx) => trx('marketingTemplates').insert({ storeId, key, ...columns }).returning('*'));
      return toTemplateDto(row);
    } catch (error) {
      if (uniqueViolation(error) === 'marketing_templates_store_key' && attempt < keys.length - 1) continue;
      if (uniqueViolation(error) === 'marketing_templates_store_key') throw keyTaken();
      throw error;
    }
  }
  throw keyTaken();
}

export async function replaceTemplate(ctx: AppContext, storeId: string, templateId: string, input: TemplateInput) {
  const columns = await columnsFrom(ctx, storeId, input);
  try {
    const [row] = await withTransaction(ctx, async (trx) =>
      trx('marketingTemplates')
        .where({ storeId, id: templateId })
        .update({ ...columns, ...(input.key ? { key: input.key } : {}), updatedAt: trx.fn.now() })
        .returning('*')
    );
    if (!row) throw notFound('Template');
    return toTemplateDto(row);
  } catch (error) {
    if (uniqueViolation(error) === 'marketing_templates_store_key') throw keyTaken();
    throw error;
  }
}

export async function deleteTemplate(ctx: AppContext, storeId: string, templateId: string) {
  const deleted = await withTransaction(ctx, async (trx) => trx('marketingTemplates').where({ storeId, id: templateId }).delete());
  if (!deleted) throw notFound('Template');
}

/** What a campaign puts in the Liquid context, filled with samples for previews. */
export function marketingSampleData(storeName: string, appUrl: string): Record<string, unknown> {
  return {
    ...sampleData(storeName, appUrl),
    customer: { firstName: 'Jane', lastName: 'Doe', email: 'jane@example.com' },
    campaign: { id: 'sample', type: 'generic' },
    discountCode: 'WELCOMEBACK',
    product: { title: 'Sample T-shirt', price: 1999, priceFormatted: '19.99 USD', url: `${appUrl}/products/sample-t-shirt`, imageUrl: null },
    collection: { title: 'Summer', url: `${appUrl}/collections/summer`, products: [{ title: 'Sample T-shirt', priceFormatted: '19.99 USD' }] },
    unsubscribeUrl: `${appUrl}/api/v1/public/unsubscribe?token=sample`
  };
}

/** Renders a saved template with sample data (optionally overridden), as the editor's preview. */
export async function previewTemplate(ctx: AppContext, storeId: string, templateId: string, data: Record<string, unknown> = {}) {
  const template = await getTemplate(ctx, storeId, templateId);
  const compiled = compileContent(template);
  try {
    return renderCompiledSync(compiled, { ...marketingSampleData(await storeName(ctx, storeId), ctx.config.appUrl), ...data });
  } catch (error) {
    if (error instanceof TemplateProblem) throw templateInvalid([{ path: 'template', message: error.message }]);
    // Liquid runtime errors (a filter given bad input) belong to the template, not the server.
    throw validationFailed([{ path: 'template', message: `Liquid error: ${(error as Error).message}` }]);
  }
}

/** A store's template by key: what transactional email uses to override a built-in key. */
export async function findTemplateByKey(ctx: AppContext, storeId: string, key: string) {
  const row: TemplateRow | undefined = await ctx.db('marketingTemplates').where({ storeId, key }).first();
  return row ? { subject: row.subject, html: row.html, text: row.text } : null;
}

export async function templateKeys(ctx: AppContext, storeId: string): Promise<string[]> {
  return (await ctx.db('marketingTemplates').where({ storeId }).orderBy('key').pluck('key')) as string[];
}
