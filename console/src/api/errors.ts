/** The contract's error body: `{ success: false, error: { code, message, details: [{ path, message }] } }`. */
export interface ApiErrorBody {
  error?: { code?: string; message?: string; details?: Array<{ path?: string; message?: string }> };
}

/** Names an operator would use for API fields that camel-case splitting gets wrong or leaves cryptic. */
const FIELD_NAMES: Record<string, string> = {
  sku: 'SKU',
  url: 'URL',
  trackingUrl: 'tracking URL',
  postalCode: 'postal code',
  line1: 'address line 1',
  line2: 'address line 2',
  body: 'the form',
  orderItemId: 'item'
};

const words = (key: string) => FIELD_NAMES[key] ?? key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
const singular = (word: string) => (/ies$/.test(word) ? word.replace(/ies$/, 'y') : word.replace(/s$/, ''));

/**
 * An API field path as an operator reads it: `variants[0].price` or `variants.0.price` → "Variant 1
 * price", `trackingCompany` → "Tracking company", `shippingAddress.postalCode` → "Shipping address
 * postal code".
 */
export function humanField(path: string): string {
  const parts = path.split(/[.[\]]+/).filter(Boolean);
  const out: string[] = [];
  for (const part of parts) {
    if (/^\d+$/.test(part) && out.length) out[out.length - 1] = `${singular(out[out.length - 1]!)} ${Number(part) + 1}`;
    else out.push(words(part));
  }
  const text = out.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A detail's message with its field's API path (joi names it `variants[0].price`) replaced by the human name. */
function humanMessage(message: string, path: string | undefined): string {
  if (!path) return message;
  const bracketed = path.replace(/\.(\d+)/g, '[$1]');
  for (const form of [bracketed, path]) {
    if (message.includes(form)) return message.split(form).join(humanField(path));
  }
  return message;
}

export class ApiError extends Error {
  readonly details: Array<{ path?: string; message?: string }>;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    details: Array<{ path?: string; message?: string }> = []
  ) {
    super(message);
    this.details = details.map((detail) => ({ ...detail, message: detail.message && humanMessage(detail.message, detail.path) }));
  }

  /** The message for one field (`details[].path`, e.g. `storeSlug` or `variants.0.sku`). */
  field(path: string): string | undefined {
    return this.details.find((detail) => detail.path === path)?.message;
  }

  /** Each detail as "Field: message" (for the details no form field shows). */
  describe(except: string[] = []): string[] {
    return this.details
      .filter((detail) => !detail.path || !except.includes(detail.path))
      .map((detail) => {
        const message = detail.message ?? 'invalid';
        const name = detail.path ? humanField(detail.path) : '';
        return name && !message.startsWith(name) ? `${name}: ${message}` : message;
      });
  }
}

/** The data of an openapi-fetch answer, or an ApiError carrying the contract's message. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data !== undefined && result.response.ok) return result.data;
  const body = (result.error ?? {}) as ApiErrorBody;
  throw new ApiError(result.response.status, body.error?.code ?? 'error', body.error?.message ?? `Request failed (${result.response.status})`, body.error?.details ?? []);
}

/** For a raw fetch: throws the contract's error when the answer is not ok. */
export async function ensureOk(response: Response): Promise<Response> {
  if (response.ok) return response;
  const body = (await response.json().catch(() => ({}))) as ApiErrorBody;
  throw new ApiError(response.status, body.error?.code ?? 'error', body.error?.message ?? `Request failed (${response.status})`, body.error?.details ?? []);
}

export function fieldError(error: unknown, path: string): string | undefined {
  return error instanceof ApiError ? error.field(path) : undefined;
}
