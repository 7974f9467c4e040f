/**
 * Request collapsing: concurrent callers asking for the same key share one in-flight computation
 * instead of each running it. Nothing is kept once it settles, so a result is never older than
 * the computation a caller joined; `forget` makes callers after a write start a new one.
 */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  run(key: string, compute: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running;
    const started = compute().finally(() => {
      if (this.inFlight.get(key) === started) this.inFlight.delete(key);
    });
    this.inFlight.set(key, started);
    return started;
  }

  /** Callers from now on do not join a computation that began before (it may predate a write they must see). */
  forget(key: string): void {
    this.inFlight.delete(key);
  }
}
