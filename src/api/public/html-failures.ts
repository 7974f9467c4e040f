import type { Lifecycle, Request, ResponseToolkit } from '@hapi/hapi';
import type { ValidationError } from 'joi';
import { AppError } from '../../errors.js';
import { failValidation } from '../plugins/validation.js';
import { htmlPage, wantsHtml, type PageContent } from './html-page.js';

/** What to tell a person about a failure: the details' messages, else the message. */
export function failureMessages(error: AppError): string[] {
  const details = (error.details ?? []).map((detail) => detail.message);
  return details.length ? [...new Set(details)] : [error.message];
}

/**
 * A route that serves browsers too: a body or query that fails validation answers a page (built from
 * the request and what to fix, e.g. the form again) with 422 when the caller wants HTML, and the
 * contract's 422 JSON otherwise.
 */
export function failValidationAsPage(page: (request: Request, messages: string[]) => PageContent | Promise<PageContent>): Lifecycle.FailAction {
  return async (request, h, error) => {
    if (!wantsHtml(request)) return (failValidation as (request: Request, h: ResponseToolkit, error?: Error) => never)(request, h, error);
    const messages = [...new Set(((error as ValidationError | undefined)?.details ?? []).map((detail) => detail.message.replace(/"/g, '')))];
    return htmlPage(h, await page(request, messages.length ? messages : ['Check what you entered and try again.']), 422).takeover();
  };
}

/** A failure of the caller's making (an AppError below 500) as a page with its status; anything else is thrown on. */
export function pageForFailure(h: ResponseToolkit, error: unknown, page: (error: AppError) => PageContent) {
  if (!(error instanceof AppError) || error.status >= 500) throw error;
  return htmlPage(h, page(error), error.status);
}

/** A string field of a form body as posted (a repeated field or a file is no value). */
export function postedField(request: Request, name: string): string | undefined {
  const payload = request.payload as Record<string, unknown> | null | undefined;
  const value = payload && typeof payload === 'object' ? payload[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
