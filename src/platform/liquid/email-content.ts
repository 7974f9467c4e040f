import type { Template } from 'liquidjs';
import { unprocessable, validationFailed, type ErrorDetail } from '../../errors.js';
import { createSandboxedLiquid, lineOf, TemplateProblem, templateProblemOf } from './sandboxed-engine.js';

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

const plainEngine = createSandboxedLiquid({ escapeHtml: false });
const htmlEngine = createSandboxedLiquid({ escapeHtml: true });
const FIELDS = [
  ['subject', plainEngine],
  ['html', htmlEngine],
  ['text', plainEngine]
] as const;

/** 422 `template_invalid`: the template does what store templates may not (names a file, goes over a limit). */
export const templateInvalid = (details: ErrorDetail[]) => {
  const first = details[0]!;
  return unprocessable('template_invalid', `${first.path}: ${first.message}`, details);
};

function withLine(message: string, line: number | null) {
  return line ? `${message} (line ${line})` : message;
}

/** Where Liquid reports a syntax problem ("…, line:3, col:1"): the line, for the 422 message. */
function describeSyntaxError(path: string, error: Error): ErrorDetail {
  const line = lineOf(error);
  const reason = error.message.replace(/,?\s*line:\d+, col:\d+.*$/s, '');
  return { path, message: line ? `Liquid syntax error on line ${line}: ${reason}` : `Liquid syntax error: ${reason}` };
}

/**
 * Parses every field. A refused tag or an over-long field is a 422 `template_invalid`, a syntax
 * error a 422 `validation_failed`; either names the field (and line).
 */
export function compileContent(content: LiquidContent, pathPrefix = ''): CompiledContent {
  const problems: ErrorDetail[] = [];
  const syntax: ErrorDetail[] = [];
  const compiled = {} as CompiledContent;
  for (const [field, engine] of FIELDS) {
    const path = `${pathPrefix}${field}`;
    try {
      compiled[field] = engine.parse(content[field] ?? '');
    } catch (error) {
      const problem = templateProblemOf(error);
      if (problem) problems.push({ path, message: withLine(problem.message, problem.line) });
      else syntax.push(describeSyntaxError(path, error as Error));
      compiled[field] = [];
    }
  }
  if (problems.length) throw templateInvalid([...problems, ...syntax]);
  if (syntax.length) throw validationFailed(syntax, `${syntax[0]!.path}: ${syntax[0]!.message}`);
  return compiled;
}

/**
 * Renders compiled content within the sandbox's limits. Over a limit throws a TemplateProblem
 * naming the field; other runtime errors (a filter given bad input) are thrown as they are.
 */
export function renderCompiledSync(compiled: CompiledContent, data: Record<string, unknown>): LiquidContent {
  const rendered = {} as LiquidContent;
  for (const [field, engine] of FIELDS) {
    try {
      rendered[field] = engine.render(compiled[field], data);
    } catch (error) {
      const problem = templateProblemOf(error);
      if (problem) throw new TemplateProblem(problem.kind, `${field}: ${problem.message}`, problem.line);
      throw error;
    }
  }
  return { ...rendered, subject: rendered.subject.trim().replace(/[\r\n]+/g, ' ') };
}

/**
 * The check on save: the content rendered once with sample data must stay within every limit
 * (422 `template_invalid` naming the field otherwise). Other runtime errors depend on the data and
 * are left to the preview and the send.
 */
export function assertWithinLimits(compiled: CompiledContent, sampleData: Record<string, unknown>, pathPrefix = ''): void {
  const details: ErrorDetail[] = [];
  for (const [field, engine] of FIELDS) {
    try {
      engine.render(compiled[field], sampleData);
    } catch (error) {
      const problem = templateProblemOf(error);
      if (problem) details.push({ path: `${pathPrefix}${field}`, message: `${problem.message} (rendered with sample data)` });
    }
  }
  if (details.length) throw templateInvalid(details);
}

/** compileContent and assertWithinLimits: what every save of store-written content goes through. */
export function checkContentOnSave(content: LiquidContent, sampleData: Record<string, unknown>, pathPrefix = ''): CompiledContent {
  const compiled = compileContent(content, pathPrefix);
  assertWithinLimits(compiled, sampleData, pathPrefix);
  return compiled;
}
