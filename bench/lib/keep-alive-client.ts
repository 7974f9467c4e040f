import net from 'node:net';

/**
 * One keep-alive HTTP/1.1 connection for the checkout load generator, one request at a time: the
 * request is written in one piece and the response read by its Content-Length. The load generator
 * shares the machine's two cores with the server and PostgreSQL; node:http's client spent about
 * 0.35 ms of CPU per request on its agent, header objects and parser, which the server then lacked.
 * Only what the benchmark needs: POST with a JSON body, responses with Content-Length (hapi sends
 * one for every JSON payload); anything else rejects.
 */
export class KeepAliveConnection {
  private socket: net.Socket | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private pending: { resolve(response: { status: number; body: string }): void; reject(error: Error): void } | undefined;
  private readonly hostHeader: string;

  constructor(private readonly origin: URL, private readonly fixedHeaders: Record<string, string>) {
    this.hostHeader = origin.host;
  }

  /** POST by default; `method` for a PATCH or PUT on the same keep-alive connection. */
  post(path: string, body: string, method = 'POST'): Promise<{ status: number; body: string }> {
    if (this.pending) return Promise.reject(new Error('one request at a time per connection'));
    const socket = this.socket ?? this.connect();
    const headers = Object.entries(this.fixedHeaders).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    const head = `${method} ${path} HTTP/1.1\r\nhost: ${this.hostHeader}\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject };
      socket.write(head + body);
    });
  }

  /** Opens the connection now, so the first request's latency is the request's alone. */
  open(): Promise<void> {
    const socket = this.socket ?? this.connect();
    if (!socket.connecting) return Promise.resolve();
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connect(): net.Socket {
    const socket = net.connect({ host: this.origin.hostname, port: Number(this.origin.port) });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (error: Error) => {
      if (this.socket === socket) this.socket = undefined;
      this.buffered = Buffer.alloc(0);
      const pending = this.pending;
      this.pending = undefined;
      pending?.reject(error);
    };
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('connection closed before the response')));
    this.socket = socket;
    return socket;
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const headerEnd = this.buffered.indexOf('\r\n\r\n');
    if (headerEnd < 0) return;
    const head = this.buffered.toString('latin1', 0, headerEnd);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) {
      this.socket?.destroy(new Error(`response without content-length: ${head.split('\r\n')[0]}`));
      return;
    }
    const end = headerEnd + 4 + Number(length[1]);
    if (this.buffered.length < end) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffered.toString('utf8', headerEnd + 4, end);
    this.buffered = this.buffered.subarray(end);
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve({ status, body });
  }
}
