import http from 'node:http';

export interface FakeProduct {
  id: string;
  title: string;
  description: string;
  sku: string | null;
  price: number;
  currency: string;
  inventory: number;
  updatedAt: string;
}

export interface FakeCustomer {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  acceptsMarketing: boolean;
  updatedAt: string;
}

export function makeProducts(count: number, from = 0): FakeProduct[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `p_${from + i}`,
    title: `External product ${from + i}`,
    description: `Description of product ${from + i}`,
    sku: `EXT-${from + i}`,
    price: 100 + ((from + i) % 900),
    currency: 'USD',
    inventory: (from + i) % 20,
    updatedAt: '2026-01-01T00:00:00.000Z'
  }));
}

export function makeCustomers(count: number, from = 0): FakeCustomer[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `c_${from + i}`,
    email: `customer${from + i}@external.example`,
    firstName: `First${from + i}`,
    lastName: `Last${from + i}`,
    acceptsMarketing: (from + i) % 3 === 0,
    updatedAt: '2026-01-01T00:00:00.000Z'
  }));
}

/**
 * A local HTTP server playing the external system of the contract (section 3): Bearer API key,
 * GET /account, GET /products?cursor=, GET /customers?cursor=, cursor paging. `failures` makes the
 * next N requests to a path answer 503, as a flaky upstream does.
 */
export class ExternalSystemServer {
  apiKey = 'ext_test_key';
  account = { id: 'acct_123', name: 'Acme Legacy Shop' };
  products: FakeProduct[] = [];
  customers: FakeCustomer[] = [];
  pageSize = 50;
  readonly failures = new Map<string, number>();
  readonly requests: Array<{ path: string; cursor: string | null; authorization: string | undefined }> = [];
  /** Awaited before a list page is answered (a test acts while the backfill is between pages). */
  beforePage: ((path: string, cursor: string | null) => Promise<void>) | null = null;
  port = 0;
  private server = http.createServer((req, res) => void this.handle(req, res));

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://x');
    const cursor = url.searchParams.get('cursor');
    this.requests.push({ path: url.pathname, cursor, authorization: req.headers.authorization });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const pending = this.failures.get(url.pathname) ?? 0;
    if (pending > 0) {
      this.failures.set(url.pathname, pending - 1);
      return send(503, { error: 'temporarily unavailable' });
    }
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return send(401, { error: 'invalid api key' });
    if (url.pathname === '/account') return send(200, this.account);
    const list = url.pathname === '/products' ? this.products : url.pathname === '/customers' ? this.customers : null;
    if (!list) return send(404, { error: 'not found' });
    await this.beforePage?.(url.pathname, cursor);
    const start = cursor ? Number(Buffer.from(cursor, 'base64url').toString()) : 0;
    const data = list.slice(start, start + this.pageSize);
    const next = start + this.pageSize < list.length ? Buffer.from(String(start + this.pageSize)).toString('base64url') : null;
    send(200, { data, nextCursor: next });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
