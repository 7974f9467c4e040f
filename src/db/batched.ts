/**
 * Calls made about the same time, run as one statement: the first call schedules a flush for the
 * next turn of the event loop; calls that arrive while a flush runs wait for the next one (group
 * commit), so a batch grows with the load and a lone call waits for nothing but its own statement.
 * Each caller's promise settles with its own item's answer once the statement has run: a job that
 * awaits it is not done before its write is.
 */
export class Batched<In, Out> {
  private waiting: Array<{ item: In; resolve: (out: Out) => void; reject: (error: unknown) => void }> = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly run: (items: In[]) => Promise<Out[]>,
    private readonly maxBatch = 100,
    private readonly maxRunning = 2
  ) {}

  call(item: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.running >= this.maxRunning || !this.waiting.length) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.running >= this.maxRunning || !this.waiting.length) return;
    const batch = this.waiting.splice(0, this.maxBatch);
    this.running += 1;
    try {
      const answers = await this.run(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.resolve(answers[i]!));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      this.running -= 1;
      this.schedule();
    }
  }
}
