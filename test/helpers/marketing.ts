import { SMTPServer } from 'smtp-server';
import { closeCampaignTransports } from '../../src/adapters/mail/index.js';
import { buildApp, signupOwner, type Owner, type Teardownable, type TestApp } from './app.js';

/** Inserts `count` customers in one statement; emails are `${prefix}${n}@example.com`. */
export async function seedCustomers(
  app: TestApp,
  storeId: string,
  count: number,
  options: { prefix?: string; emailMarketing?: string; ordersCount?: number; lastOrderDaysAgo?: number | null; tags?: string[]; totalSpent?: number } = {}
): Promise<string[]> {
  const prefix = options.prefix ?? 'c';
  const result = await app.ctx.db.raw(
    `insert into customers (store_id, email, first_name, last_name, email_marketing, orders_count, total_spent, last_order_at, tags)
     select ?, ? || n || '@example.com', 'First' || n, 'Last' || n, ?, ?, ?,
            case when ?::int is null then null else now() - make_interval(days => ?::int) end, ?::text[]
       from generate_series(1, ?) as n
     returning id`,
    [
      storeId,
      prefix,
      options.emailMarketing ?? 'subscribed',
      options.ordersCount ?? 0,
      options.totalSpent ?? 0,
      options.lastOrderDaysAgo ?? null,
      options.lastOrderDaysAgo ?? null,
      options.tags ?? [],
      count
    ]
  );
  return result.rows.map((r: { id: string }) => r.id);
}

/** Polls GET campaign until its status is one of `statuses`. */
export async function waitForCampaign(app: TestApp, owner: Owner, campaignId: string, statuses: string[], timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await app.request({ url: `/admin/marketing/campaigns/${campaignId}`, token: owner.accessToken, storeId: owner.store.id });
    if (statuses.includes(response.body.data?.campaign?.status)) return response.body.data.campaign;
    if (Date.now() > deadline) throw new Error(`campaign still ${response.body.data?.campaign?.status}: ${response.raw}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * An SMTP server for campaign tests: `rcptReply(address)` may answer a code (451, 550) for a
 * recipient; `keep: false` accepts and discards (benchmarks). Records each accepted message's
 * recipients, Message-ID and raw text, and the arrival times.
 */
export class CampaignSmtp {
  readonly accepted: Array<{ to: string; messageId: string; raw: string; at: number }> = [];
  rcptReply: (address: string) => number | null = () => null;
  private server: SMTPServer;
  port = 0;

  constructor(private readonly options: { keep?: boolean } = {}) {
    this.server = new SMTPServer({
      secure: false,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      size: 10 * 1024 * 1024,
      onRcptTo: (address, _session, callback) => {
        const code = this.rcptReply(address.address.toLowerCase());
        if (code) {
          const error = new Error(code >= 500 ? 'Mailbox unavailable' : 'Try again later') as Error & { responseCode: number };
          error.responseCode = code;
          return callback(error);
        }
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        const keep = this.options.keep !== false;
        stream.on('data', (chunk: Buffer) => keep && chunks.push(chunk));
        stream.on('end', () => {
          const raw = keep ? Buffer.concat(chunks).toString('utf8') : '';
          const messageId = keep ? (/^Message-ID:\s*(\S+)/im.exec(raw)?.[1] ?? '') : '';
          for (const rcpt of session.envelope.rcptTo) this.accepted.push({ to: rcpt.address, messageId, raw, at: Date.now() });
          callback();
        });
      }
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.server.address() as { port: number }).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A store sending campaigns at `marketingSendRate` through the campaign workers into a capturing SMTP server. */
export async function campaignShop(t: Teardownable, marketingSendRate: number) {
  const smtp = await new CampaignSmtp().start();
  t.teardown(async () => {
    closeCampaignTransports();
    await smtp.stop();
  });
  const app = await buildApp(t, { workers: ['campaigns'], env: { SMTP_URL: smtp.url } });
  const owner = await signupOwner(app);
  await app.ctx.db('stores').where({ id: owner.store.id }).update({ marketingSendRate });
  return { smtp, app, owner, as: { token: owner.accessToken, storeId: owner.store.id } };
}

/** The least-squares slope of arrival times (ms) in messages/s: a late timer clumping a few messages at either end does not swing it the way first-to-last would. */
export function measuredSendRate(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  const n = sorted.length;
  const meanT = sorted.reduce((a, b) => a + b, 0) / n;
  const meanI = (n - 1) / 2;
  let num = 0;
  let den = 0;
  sorted.forEach((time, i) => {
    num += (time - meanT) * (i - meanI);
    den += (time - meanT) ** 2;
  });
  return (num / den) * 1000;
}

/**
 * Whether a measured send rate keeps a store's setting. The limiter's promise is a ceiling, so the
 * bound above is tight (10%). Below, a busy machine (CI runs other suites beside a 3-master Redis
 * Cluster) makes senders miss slots they were given, and a slot missed is gone: stop 43's CI measured
 * 33.5/s for 40 there. The floor (70%) still fails a limiter that splits the rate between processes
 * (50%) or leaves gaps between batches.
 */
export function sendRateKept(measured: number, rate: number): boolean {
  return measured <= rate * 1.1 && measured >= rate * 0.7;
}
