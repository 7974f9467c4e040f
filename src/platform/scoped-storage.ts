import { AsyncLocalStorage } from 'node:async_hooks';

/** Runs in flight of the instances made with `{ requestScope: true }` (the audit module's admin request). */
let requestScopeRuns = 0;

/**
 * AsyncLocalStorage whose cost is paid only while one of its runs is in flight. On Node 20 an enabled
 * AsyncLocalStorage keeps promise hooks on for the whole process: every promise any request creates
 * then calls into the hooks (about a tenth of a storefront read's server CPU, issue #38). A plain
 * instance enables them at its first `run` and never turns them off, so one admin request made every
 * later storefront read and checkout pay. This one disables its instance when its last run settles
 * (a run's work settles when the value it returns does), and the hooks go off with the last enabled
 * instance.
 *
 * What a settled run leaves behind (a timer or promise it started and did not await) reads no store
 * once the instance is disabled, as `outsideAuditRequest` already makes the audit seal's timer do.
 */
export class ScopedStorage<T> {
  readonly #storage = new AsyncLocalStorage<T>();
  readonly #requestScope: boolean;
  #inFlight = 0;

  /**
   * `requestScope`: a run spans a request (the audit module's admin request), and
   * `requestScopesInFlight` counts it: code that only needs its own store when such a request may
   * read it (withTransaction's nesting) can skip its own run otherwise.
   */
  constructor(options: { requestScope?: boolean } = {}) {
    this.#requestScope = options.requestScope ?? false;
  }

  /** Whether a run of a request-scope instance is in flight anywhere in the process. */
  static requestScopesInFlight(): boolean {
    return requestScopeRuns > 0;
  }

  run<R>(store: T, work: () => R): R {
    this.#inFlight += 1;
    if (this.#requestScope) requestScopeRuns += 1;
    let result: R;
    try {
      result = this.#storage.run(store, work);
    } catch (error) {
      this.#settled();
      throw error;
    }
    if (!isThenable(result)) {
      this.#settled();
      return result;
    }
    // A thenable that is not a promise (a knex query builder) runs again at each `then`: it is
    // resolved once here, and its caller awaits the promise instead.
    const settled = result instanceof Promise ? result : Promise.resolve(result);
    settled.then(
      () => this.#settled(),
      () => this.#settled()
    );
    return settled as R;
  }

  /** Whether the underlying instance is enabled (Node's own flag; its promise hooks are on while any instance is). */
  get enabled(): boolean {
    return (this.#storage as unknown as { enabled: boolean }).enabled === true;
  }

  getStore(): T | undefined {
    return this.#inFlight > 0 ? this.#storage.getStore() : undefined;
  }

  /** Runs `work` with no store (work that outlives the run that started it, such as a timer). */
  exit<R>(work: () => R): R {
    return this.#inFlight > 0 ? this.#storage.exit(work) : work();
  }

  #settled(): void {
    this.#inFlight -= 1;
    if (this.#requestScope) requestScopeRuns -= 1;
    if (this.#inFlight === 0) this.#storage.disable();
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
