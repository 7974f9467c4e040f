import { Liquid, type Template } from 'liquidjs';
import { validationFailed, type ErrorDetail } from '../../errors.js';

/** The Liquid parts of an email: subject and text render raw, html escapes every output. */
export interface LiquidContent {
  subject: string;
  html: string;
  text: string;
}

export interface CompiledContent {
  subject: Template[];
  html: Template[];
  text: Template[];
}

// Same settings as the transactional renderer (src/services/email/templates.ts).
const plainEngine = new Liquid({ strictFilters: true, cache: false, outputEscape: undefined });
const htmlEngine = new Liquid({ strictFilters: true, cache: false, outputEscape: 'escape' });

/** Where Liquid reports a problem ("…, line:3, col:1"): the line, for the 422 message. */
function describeLiquidError(field: string, error: Error): ErrorDetail {
  const line = /line:(\d+)/.exec(error.message)?.[1];
  const reason = error.message.replace(/,?\s*line:\d+, col:\d+.*$/s, '');
  return { path: field, message: line ? `Liquid syntax error on line ${line}: ${reason}` : `Liquid syntax error: ${reason}` };
}

/** Parses every field; a syntax error in any of them is a 422 naming the field and line. */
export function compileContent(content: LiquidContent, pathPrefix = ''): CompiledContent {
  const details: ErrorDetail[] = [];
  const parse = (field: keyof LiquidContent, engine: Liquid): Template[] => {
    try {
      return engine.parse(content[field] ?? '');
    } catch (error) {
      details.push(describeLiquidError(`${pathPrefix}${field}`, error as Error));
      return [];
    }
  };
  const compiled = { subject: parse('subject', plainEngine), html: parse('html', htmlEngine), text: parse('text', plainEngine) };
  if (details.length) {
    const first = details[0]!;
    throw validationFailed(details, `${first.path}: ${first.message}`);
  }
  return compiled;
}

/** Renders compiled content; runtime errors surface as thrown errors (the caller decides). */
export function renderCompiledSync(compiled: CompiledContent, data: Record<string, unknown>): LiquidContent {
  return {
    subject: (plainEngine.renderSync(compiled.subject, data) as string).trim().replace(/[\r\n]+/g, ' '),
    html: htmlEngine.renderSync(compiled.html, data) as string,
    text: plainEngine.renderSync(compiled.text, data) as string
  };
}
