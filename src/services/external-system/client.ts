import http from 'node:http';
import https from 'node:https';
import { upstreamFailed, validationFailed } from '../../errors.js';
import { isIP } from 'node:net';
import { isInternalAddress } from '../address-ranges.js';
import { guardedLookup, PrivateAddressError } from './address-guard.js';

export interface ExternalAccount {
  id: string;
  name: string;
}

export interface ExternalProduct {
  id: string;
  title: string;
  description?: string | null;
  sku?: string | null;
  price: number;
  currency?: string;
  inventory?: number | null;
  updatedAt?: string | null;
}

export interface ExternalCustomer {
  id: string;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  acceptsMarketing?: boolean;
  updatedAt?: string | null;
}

export interface ExternalPage<T> {
  data: T[];
  nextCursor: string | null;
}

/** A failure worth retrying (5xx, 429, network); anything else (bad key, 404, bad JSON) is final. */
export class ExternalSystemError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number
  ) {
    super(message);
  }
}

export interface ClientOptions {
  allowPrivateHosts: boolean;
  timeoutMs?: number;
  /** In-call retries of a retryable failure before giving up (the job retries again later). */
  retries?: number;
  retryDelayMs?: number;
}

/**
 * The external system's baseUrl: https only, unless private hosts are allowed (local testing).
 * Throws 422 naming the field.
 */
export function checkBaseUrl(raw: string, allowPrivateHosts: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationFailed([{ path: 'baseUrl', message: 'baseUrl must be an absolute URL' }]);
  }
  if (url.protocol !== 'https:' && !(allowPrivateHosts && url.protocol === 'http:')) {
    throw validationFailed([{ path: 'baseUrl', message: 'baseUrl must use https' }]);
  }
  if (url.username || url.password) throw validationFailed([{ path: 'baseUrl', message: 'baseUrl must not carry credentials' }]);
  // Sockets to IP literals skip the lookup, so a literal is checked here.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivateHosts && isIP(literal) && isInternalAddress(literal)) {
    throw validationFailed([{ path: 'baseUrl', message: 'baseUrl must resolve to a public address' }]);
  }
  url.hash = '';
  url.search = '';
  return url;
}

/** Talks to the external system's API (see the contract, section 3) with the store's API key. */
export class ExternalSystemClient {
  private readonly base: URL;
  private readonly agent: http.Agent;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    private readonly options: ClientOptions
  ) {
    this.base = checkBaseUrl(baseUrl, options.allowPrivateHosts);
    const AgentClass = this.base.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new AgentClass({ keepAlive: true, maxSockets: 4, ...(options.allowPrivateHosts ? {} : { lookup: guardedLookup as any }) });
  }

  close(): void {
    this.agent.destroy();
  }

  account(): Promise<ExternalAccount> {
    return this.get<ExternalAccount>('/account');
  }

  products(cursor: string | null): Promise<ExternalPage<ExternalProduct>> {
    return this.get<ExternalPage<ExternalProduct>>('/products', cursor);
  }

  customers(cursor: string | null): Promise<ExternalPage<ExternalCustomer>> {
    return this.get<ExternalPage<ExternalCustomer>>('/customers', cursor);
  }

  private async get<T>(path: string, cursor: string | null = null): Promise<T> {
    const retries = this.options.retries ?? 2;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once<T>(path, cursor);
      } catch (error) {
        const retryable = error instanceof ExternalSystemError && error.retryable;
        if (!retryable || attempt >= retries) throw error;
        await new Promise((resolve) => setTimeout(resolve, (this.options.retryDelayMs ?? 250) * 2 ** attempt));
      }
    }
  }

  private once<T>(path: string, cursor: string | null): Promise<T> {
    const url = new URL(this.base.href.replace(/\/+$/, '') + path);
    if (cursor) url.searchParams.set('cursor', cursor);
    const transport = url.protocol === 'https:' ? https : http;
    return new Promise<T>((resolve, reject) => {
      const request = transport.request(
        url,
        { method: 'GET', agent: this.agent, ...(this.options.allowPrivateHosts ? {} : { lookup: guardedLookup as any }), headers: { authorization: `Bearer ${this.apiKey}`, accept: 'application/json' }, timeout: this.options.timeoutMs ?? 15_000 },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > 32 * 1024 * 1024) request.destroy(new ExternalSystemError('The external system sent more than 32 MB', false));
            else chunks.push(chunk);
          });
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const text = Buffer.concat(chunks).toString('utf8');
            if (status === 401 || status === 403) return reject(new ExternalSystemError(`The external system refused the API key (HTTP ${status})`, false, status));
            if (status === 429 || status >= 500) return reject(new ExternalSystemError(`The external system answered HTTP ${status} on ${path}`, true, status));
            if (status < 200 || status >= 300) return reject(new ExternalSystemError(`The external system answered HTTP ${status} on ${path}`, false, status));
            try {
              resolve(JSON.parse(text) as T);
            } catch {
              reject(new ExternalSystemError(`The external system sent a response that is not JSON on ${path}`, false, status));
            }
          });
          response.on('error', (error) => reject(new ExternalSystemError(`Reading from the external system failed: ${error.message}`, true)));
        }
      );
      request.on('timeout', () => request.destroy(new ExternalSystemError(`The external system did not answer ${path} in time`, true)));
      request.on('error', (error) => {
        if (error instanceof ExternalSystemError) return reject(error);
        if (error instanceof PrivateAddressError || (error as NodeJS.ErrnoException).code === 'EPRIVATEADDRESS') {
          return reject(validationFailed([{ path: 'baseUrl', message: 'baseUrl must resolve to a public address' }]));
        }
        reject(new ExternalSystemError(`The external system could not be reached: ${error.message}`, true));
      });
      request.end();
    });
  }
}

/** For synchronous routes: the external system's failure as a 502 with its message. */
export function asUpstreamError(error: unknown): unknown {
  if (error instanceof ExternalSystemError) return upstreamFailed(error.message, [{ path: 'externalSystem', message: error.message }]);
  return error;
}
