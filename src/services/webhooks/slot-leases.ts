import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

/** The calls a lease makes on the shared slot store (ctx.backends.slots). */
export interface ClaimStore {
  take(key: string, member: string, limit: number, claimMs: number): Promise<boolean>;
  release(key: string, member: string): Promise<void>;
}

/** A slot held by one attempt in this process; `release` hands it back to the process, not the store. */
export interface Lease {
  release(): void;
}

interface Token {
  /** This token's claim in the store: one of the key's `limit` claims, held by this process. */
  member: string;
  busy: boolean;
  /** When its claim was last made or renewed (a claim lapses claimMs after). */
  claimedAt: number;
  idle?: NodeJS.Timeout;
}

export interface SlotLeasesOptions {
  /** How long a claim in the store lives without renewal (the store's own lapse). */
  claimMs: number;
  /** How long a token no attempt uses is kept for the next one before its claim is released. */
  lingerMs: number;
}

/**
 * Attempts that may wait per slot of a key: enough to keep the key's slots busy between re-queues
 * (the webhooks bench's one busy endpoint: 36 deliveries/s with none waiting, 122/s with two per
 * slot, 120/s with four), few enough that a hanging endpoint ties up little of a worker.
 */
const WAITING_PER_SLOT = 2;

interface Waiter {
  handOver(token: Token): void;
}

/**
 * In-flight caps shared by every process, with the shared store asked only when this process's
 * share of a key changes. A process claims slots in the store as tokens of its own (one claim per
 * token, so the store still counts every slot any process holds against the key's limit); an
 * attempt that ends hands its token back to the process, where the next attempt on that key takes
 * it without a call, and a token unused for `lingerMs` is released to the store. Before, each
 * webhook delivery made two claims and a release in the store: on the PostgreSQL backend two
 * fifths of the database's work per delivery (the webhooks bench: 899 deliveries/s at 1.42 ms of
 * CPU with them, 1,181/s at 1.03 ms with no store calls at all).
 *
 * The caps hold as before: an attempt runs only on a token, and every token is a live claim. A
 * token reused after claimMs / 4 renews its claim first (a claim must outlive the attempt on it).
 * A process that dies leaves claims that lapse as before. What changes: a process keeps a token
 * for up to lingerMs after its last use, so another process may wait that much longer for it.
 */
export class SlotLeases {
  private readonly tokens = new Map<string, Token[]>();
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private made = 0;

  constructor(
    private readonly store: ClaimStore,
    private readonly options: SlotLeasesOptions
  ) {}

  /**
   * A slot under `key` for one attempt, or null when the key's `limit` slots are all held (here or
   * elsewhere). With `waitMs`, an attempt that finds every slot held by this process in use waits
   * up to that long for one of them to be handed back (at most WAITING_PER_SLOT times `limit`
   * attempts wait per key; the rest get null at once), instead of the caller re-queuing it.
   */
  async acquire(key: string, limit: number, { waitMs = 0 }: { waitMs?: number } = {}): Promise<Lease | null> {
    const held = this.tokensOf(key);
    const free = held.find((token) => !token.busy);
    if (free) {
      free.busy = true;
      clearTimeout(free.idle);
      return this.renewed(key, free, limit);
    }
    // Every slot of the key is this process's and in use: no call can find another.
    if (held.length >= limit) return waitMs > 0 ? this.waitFor(key, limit, waitMs) : null;
    const token: Token = { member: `${this.owner}:${++this.made}`, busy: true, claimedAt: Date.now() };
    // Counted here before the call, so that attempts starting meanwhile see it.
    held.push(token);
    if (!(await this.claim(key, token.member, limit))) {
      this.forget(key, token);
      return null;
    }
    return this.leaseOf(key, token);
  }

  /** The tokens this process holds under `key` and how many are in use (tests, diagnostics). */
  heldUnder(key: string): { held: number; busy: number } {
    const held = this.tokens.get(key) ?? [];
    return { held: held.length, busy: held.filter((token) => token.busy).length };
  }

  /**
   * Releases every token no attempt uses, at once (a worker closing: a clean stop leaves no claim
   * to lapse, which would shrink the caps of the processes replacing it for a claim time).
   */
  async releaseIdle(): Promise<void> {
    const idle = [...this.tokens].flatMap(([key, held]) => held.filter((token) => !token.busy).map((token) => ({ key, token })));
    await Promise.all(idle.map(({ key, token }) => this.drop(key, token)));
  }

  /** A token taken for an attempt, its claim renewed first when reused after a quarter of its claim time. */
  private async renewed(key: string, token: Token, limit: number): Promise<Lease | null> {
    if (Date.now() - token.claimedAt > this.options.claimMs / 4) {
      const at = Date.now();
      // A renewal refused: the limit fell under what others hold. The token goes back.
      if (!(await this.claim(key, token.member, limit))) {
        await this.drop(key, token);
        return null;
      }
      token.claimedAt = at;
    }
    return this.leaseOf(key, token);
  }

  private waitFor(key: string, limit: number, waitMs: number): Promise<Lease | null> {
    let queue = this.waiting.get(key);
    if (!queue) this.waiting.set(key, (queue = []));
    if (queue.length >= limit * WAITING_PER_SLOT) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        handOver: (token) => {
          clearTimeout(timer);
          resolve(this.renewed(key, token, limit));
        }
      };
      const timer = setTimeout(() => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        if (!queue.length && this.waiting.get(key) === queue) this.waiting.delete(key);
        resolve(null);
      }, waitMs).unref();
      queue.push(waiter);
    });
  }

  private tokensOf(key: string): Token[] {
    let held = this.tokens.get(key);
    if (!held) this.tokens.set(key, (held = []));
    return held;
  }

  /** The store away: no cap (as before leases: an attempt is not held up by the slot store). */
  private async claim(key: string, member: string, limit: number): Promise<boolean> {
    try {
      return await this.store.take(key, member, limit, this.options.claimMs);
    } catch {
      return true;
    }
  }

  private leaseOf(key: string, token: Token): Lease {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        // The next attempt waiting on this key takes the token as it is, still busy.
        const queue = this.waiting.get(key);
        const next = queue?.shift();
        if (queue && !queue.length) this.waiting.delete(key);
        if (next) {
          next.handOver(token);
          return;
        }
        token.busy = false;
        token.idle = setTimeout(() => {
          if (!token.busy) void this.drop(key, token);
        }, this.options.lingerMs).unref();
      }
    };
  }

  private forget(key: string, token: Token): void {
    clearTimeout(token.idle);
    const held = this.tokens.get(key);
    if (!held) return;
    const at = held.indexOf(token);
    if (at >= 0) held.splice(at, 1);
    if (!held.length) this.tokens.delete(key);
  }

  /** A claim not released lapses after claimMs by itself: a failed release only delays the next attempt. */
  private async drop(key: string, token: Token): Promise<void> {
    this.forget(key, token);
    await this.store.release(key, token.member).catch(() => undefined);
  }
}
