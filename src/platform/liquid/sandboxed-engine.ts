import { CaptureTag, Context, Liquid, toValue, toValueSync, type Emitter, type FS, type Template } from 'liquidjs';

/**
 * Store templates (transactional overrides, marketing templates, campaign content) are code written
 * by store owners and run by the shared API and workers. This is the only way the code base makes a
 * Liquid engine: no file can be named or read, and every parse and render is bounded.
 */
export const TEMPLATE_LIMITS = {
  /** Characters of one field (subject, html or text) that one parse reads. */
  parseChars: 256 * 1024,
  /** CPU time of one render of one field. */
  renderMs: 250,
  /** UTF-8 bytes one render of one field may write. */
  outputBytes: 512 * 1024,
  /**
   * liquidjs's allocation budget per render, shared by ranges (`(1..n)` costs n), filters that build
   * strings or arrays (their length) and captures (their length): a `for` over a huge range is refused
   * before the range exists.
   */
  allocations: 500_000
} as const;

/** Tags that read other templates from a file system: store templates may not name any file. */
const REFUSED_TAGS = ['include', 'render', 'layout'] as const;

/** A template names a tag store templates may not use. */
export class RefusedTagError extends Error {
  constructor(readonly tag: string) {
    super(`{% ${tag} %} is not allowed: store templates cannot include files or partials`);
    this.name = 'RefusedTagError';
  }
}

export type TemplateLimit = 'parse' | 'time' | 'output' | 'allocations';

const LIMIT_MESSAGES: Record<TemplateLimit, string> = {
  parse: `the template is longer than ${TEMPLATE_LIMITS.parseChars} characters`,
  time: `rendering took more than ${TEMPLATE_LIMITS.renderMs} ms of CPU time`,
  output: `the output is larger than ${TEMPLATE_LIMITS.outputBytes / 1024} KiB`,
  allocations: `a loop, range, filter or capture is too large (over ${TEMPLATE_LIMITS.allocations} items or characters)`
};

/** A parse or render went over one of TEMPLATE_LIMITS; the template is at fault, not the server. */
export class TemplateLimitError extends Error {
  constructor(readonly limit: TemplateLimit) {
    super(`template over a limit: ${LIMIT_MESSAGES[limit]}`);
    this.name = 'TemplateLimitError';
  }
}

/** The messages of liquidjs's own Limiter ("<resource> limit exceeded"). */
const ENGINE_LIMITS: Array<[RegExp, TemplateLimit]> = [
  [/parse length limit exceeded/, 'parse'],
  [/memory alloc limit exceeded/, 'allocations']
];

/** The limit an error (or the error it wraps) stands for, or null when it is not a limit. */
function limitOf(error: unknown): TemplateLimit | null {
  for (let e = error as (Error & { originalError?: unknown }) | undefined, depth = 0; e && depth < 10; e = e.originalError as typeof e, depth++) {
    if (e instanceof TemplateLimitError) return e.limit;
    // V8's longest string: only a template that doubles strings gets there.
    if (e instanceof RangeError && /Invalid string length/.test(e.message)) return 'output';
    const hit = ENGINE_LIMITS.find(([pattern]) => pattern.test(String(e!.message)));
    if (hit) return hit[1];
  }
  return null;
}

function refusedTagOf(error: unknown): RefusedTagError | null {
  for (let e = error as (Error & { originalError?: unknown }) | undefined, depth = 0; e && depth < 10; e = e.originalError as typeof e, depth++) {
    if (e instanceof RefusedTagError) return e;
  }
  return null;
}

/** Where liquidjs located a problem ("…, line:3, col:1"). */
export function lineOf(error: Error): number | null {
  const line = /line:(\d+)/.exec(error.message)?.[1];
  return line ? Number(line) : null;
}

/** Answers every lookup with "no such file": a second wall behind the refused tags. */
const NO_FILES: FS = {
  exists: async () => false,
  existsSync: () => false,
  readFile: async () => {
    throw new Error('store templates cannot read files');
  },
  readFileSync: () => {
    throw new Error('store templates cannot read files');
  },
  resolve: (_dir, file) => file,
  contains: async () => false,
  containsSync: () => false
};

/** liquidjs's own output conversion (its emitters' `stringify`), which it does not export. */
function stringify(value: unknown): string {
  const plain = toValue(value);
  if (typeof plain === 'string') return plain;
  if (plain === null || plain === undefined) return '';
  if (Array.isArray(plain)) return plain.map(stringify).join('');
  return String(plain);
}

/** Collects the output and stops the render as soon as it passes the output limit. */
class BoundedOutput implements Emitter {
  buffer = '';
  private bytes = 0;

  write(html: unknown): void {
    const text = stringify(html);
    // Length first: a string past the limit in characters is past it in bytes, without measuring it.
    if (text.length > TEMPLATE_LIMITS.outputBytes) throw new TemplateLimitError('output');
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > TEMPLATE_LIMITS.outputBytes) throw new TemplateLimitError('output');
    this.buffer += text;
  }
}

const CPU_RECHECK_MS = 10;

/**
 * liquidjs checks its render limit before every node, against wall time. A render is synchronous,
 * so its cost is the process's CPU time: once the wall time passes the limit, the CPU time decides
 * (read again every CPU_RECHECK_MS), so a busy host (the process waiting for a core) never fails a
 * cheap template while an expensive one stops as soon. Reading CPU time is a system call, too
 * costly before every node.
 */
class CpuTimeLimit {
  private readonly cpuStart = process.cpuUsage();
  private nextCpuRead = performance.now() + TEMPLATE_LIMITS.renderMs;

  /** `now` is liquidjs's performance.now() at the check. */
  check(now: number): void {
    if (now < this.nextCpuRead) return;
    const used = process.cpuUsage(this.cpuStart);
    if ((used.user + used.system) / 1000 > TEMPLATE_LIMITS.renderMs) throw new TemplateLimitError('time');
    this.nextCpuRead = now + CPU_RECHECK_MS;
  }

  use(): void {}
}

type EngineLimiter = NonNullable<ConstructorParameters<typeof Context>[3]>['renderLimit'];

/** `capture` writes into a buffer of liquidjs's own: charge what it captured to the allocation budget. */
class ChargedCapture extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    yield* super.render(ctx);
    const captured = (ctx.bottom() as Record<string, unknown>)[this.variable];
    ctx.memoryLimit.use(typeof captured === 'string' ? captured.length : 0);
  }
}

export interface SandboxedLiquid {
  /** Parses one field; throws TemplateProblem for a refused tag or the parse limit, liquidjs's errors for syntax. */
  parse(source: string): Template[];
  /** Renders parsed templates within the limits; throws TemplateProblem over a limit, liquidjs's errors otherwise. */
  render(templates: Template[], data: Record<string, unknown>): string;
}

/** A sandbox violation, with the field-level reason (`{% include %} is not allowed…`, `template over a limit: …`). */
export class TemplateProblem extends Error {
  constructor(
    readonly kind: 'refused_tag' | 'limit',
    message: string,
    readonly line: number | null
  ) {
    super(message);
    this.name = 'TemplateProblem';
  }
}

/** The sandbox violation behind a liquidjs error, or null for anything else (syntax, a filter's runtime error). */
export function templateProblemOf(error: unknown): TemplateProblem | null {
  if (error instanceof TemplateProblem) return error;
  const refused = refusedTagOf(error);
  if (refused) return new TemplateProblem('refused_tag', refused.message, lineOf(error as Error));
  const limit = limitOf(error);
  if (limit) return new TemplateProblem('limit', new TemplateLimitError(limit).message, null);
  return null;
}

/**
 * A Liquid engine for store templates. `escapeHtml` escapes every output (the html part of an
 * email); the subject and text parts render raw. Include, render and layout are refused when the
 * template is parsed, the engine has no directories and its file system holds nothing; filters and
 * variables are the standard ones, unknown filters are errors, and only own properties of the data
 * are visible.
 */
export function createSandboxedLiquid(options: { escapeHtml: boolean }): SandboxedLiquid {
  const engine = new Liquid({
    strictFilters: true,
    ownPropertyOnly: true,
    outputEscape: options.escapeHtml ? 'escape' : undefined,
    fs: NO_FILES,
    root: [],
    partials: [],
    layouts: [],
    relativeReference: false,
    parseLimit: TEMPLATE_LIMITS.parseChars,
    memoryLimit: TEMPLATE_LIMITS.allocations
  });
  for (const tag of REFUSED_TAGS) {
    engine.registerTag(tag, {
      parse(token) {
        throw new RefusedTagError(token.name);
      },
      render() {}
    });
  }
  engine.registerTag('capture', ChargedCapture);

  return {
    parse(source) {
      try {
        return engine.parse(source);
      } catch (error) {
        throw templateProblemOf(error) ?? error;
      }
    },
    render(templates, data) {
      // A context of our own: the time limit counts CPU time from now, the output goes through our emitter.
      const ctx = new Context(data, engine.options, { sync: true }, { liquid: engine, renderLimit: new CpuTimeLimit() as unknown as EngineLimiter });
      const output = new BoundedOutput();
      try {
        toValueSync(engine.renderer.renderTemplates(templates, ctx, output));
      } catch (error) {
        throw templateProblemOf(error) ?? error;
      }
      return output.buffer;
    }
  };
}
