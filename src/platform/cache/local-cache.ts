import type { Logger } from 'pino';
import type { InvalidationBus } from '../../adapters/invalidation/index.js';

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * A small in-process cache for hot reads (storefront token → store) with cross-process
 * invalidation over the backends' pub/sub (Redis, or PostgreSQL LISTEN/NOTIFY). Invalidation is synchronous in the process that made the
 * change, so a revoked token is refused at once there, and within milliseconds elsewhere.
 *
 * Bounds, stated: an entry lives at most `ttlMs` (STOREFRONT_CACHE_TTL_MS, 10 s by default), so a
 * revocation holds in every process within that time even if its pub/sub message is lost; a
 * subscriber reconnect (when messages may have been missed) drops every entry. Every invalidation
 * bumps a generation counter: a value read from the database before an invalidation is not cached
 * after it (`set(key, value, generationTakenBeforeTheRead)`). Only an invalidation of that same key
 * (or a full clear) refuses the value: the catalog's stock changes invalidate other keys many times
 * a second during checkouts, and must not keep the token and store entries from ever being cached.
 */
export class LocalCache {
  private readonly entries = new Map<string, Entry>();
  private started = false;
  private currentGeneration = 0;
  /** The generation of each key's latest invalidation (bounded: the oldest are forgotten, raising `floor`). */
  private readonly droppedAt = new Map<string, number>();
  /** A value read at a generation below this may have missed an invalidation no longer remembered. */
  private floor = 0;

  constructor(
    private readonly bus: InvalidationBus,
    private readonly log: Logger,
    private readonly ttlMs = 10_000,
    private readonly maxEntries = 10_000
  ) {}

  async start(): Promise<void> {
    // Not awaited inside: with the store down at boot the process must still start and serve. Until
    // the subscription is up, entries are bounded by the TTL alone. A (re)subscription may have
    // missed messages: everything is dropped rather than served stale.
    this.bus.start(
      (key) => this.drop(key),
      () => this.clear()
    );
    this.started = true;
  }

  /** The invalidation generation; pass it to `set` when the value was read after taking it. */
  generation(): number {
    return this.currentGeneration;
  }

  private drop(key: string): void {
    this.currentGeneration += 1;
    this.entries.delete(key);
    this.droppedAt.delete(key);
    this.droppedAt.set(key, this.currentGeneration);
    if (this.droppedAt.size > this.maxEntries) {
      const [oldestKey, oldestGeneration] = this.droppedAt.entries().next().value as [string, number];
      this.droppedAt.delete(oldestKey);
      this.floor = Math.max(this.floor, oldestGeneration);
    }
  }

  private clear(): void {
    this.currentGeneration += 1;
    this.entries.clear();
    this.droppedAt.clear();
    this.floor = this.currentGeneration;
  }

  /** Whether `key` may have been invalidated after a read that took `generation`. */
  private staleSince(key: string, generation: number): boolean {
    return generation < this.floor || (this.droppedAt.get(key) ?? 0) > generation;
  }

  get<T>(key: string): T | undefined {
    if (this.ttlMs <= 0) return undefined;
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value as T;
  }

  set(key: string, value: unknown, generation?: number): void {
    if (this.ttlMs <= 0) return;
    if (generation !== undefined && this.staleSince(key, generation)) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }

  async invalidate(...keys: string[]): Promise<void> {
    for (const key of keys) this.drop(key);
    if (!this.started) return;
    try {
      await this.bus.publish(keys);
    } catch (error) {
      this.log.warn({ err: { message: (error as Error).message } }, 'cache invalidation not published');
    }
  }

  async close(): Promise<void> {
    if (this.started) await this.bus.close();
    this.started = false;
    this.entries.clear();
  }
}
