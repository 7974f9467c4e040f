import net from 'node:net';

/**
 * A TCP proxy in front of a real server (Redis here) that a test can take down and bring back on
 * the same port: the service under test sees a real outage and a real recovery, while the shared
 * server behind it keeps running for every other test file.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private held = false;
  private heldChunks: { upstream: net.Socket; chunk: Buffer }[] = [];
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      // Client to server by hand, so that `hold` can keep requests back; answers flow as they come.
      client.on('data', (chunk: Buffer) => {
        if (this.held) this.heldChunks.push({ upstream, chunk });
        else upstream.write(chunk);
      });
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
    return this;
  }

  /**
   * Keeps every request back, connections open: the server seems to hang (no answer, no error),
   * which is what a client's wait on a stuck server looks like, unlike `stop`'s refused connection.
   */
  hold(): void {
    this.held = true;
  }

  /** Sends what `hold` kept back, in order, and lets requests through again. */
  release(): void {
    this.held = false;
    const chunks = this.heldChunks;
    this.heldChunks = [];
    for (const { upstream, chunk } of chunks) if (!upstream.destroyed) upstream.write(chunk);
  }

  /** Drops every connection and refuses new ones until `start` is called again. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
