import dns2 from 'dns2';

const { Packet } = dns2;

export interface ZoneEntry {
  CNAME?: string;
  TXT?: string[];
  /** Never answer: the resolver times out. */
  silent?: boolean;
}

/**
 * A real DNS server (dns2, UDP) on a free local port answering from an editable zone: names not
 * in the zone get NXDOMAIN, names without the asked type an empty answer, `silent` names nothing.
 */
export class DnsServer {
  readonly zone = new Map<string, ZoneEntry>();
  queries = 0;
  port = 0;
  private server: ReturnType<typeof dns2.createServer>;

  constructor() {
    this.server = dns2.createServer({
      udp: true,
      handle: (request: any, send: (response: any) => void) => {
        this.queries += 1;
        const response = Packet.createResponseFromRequest(request);
        const [question] = request.questions;
        const name = String(question.name).toLowerCase().replace(/\.$/, '');
        const entry = this.zone.get(name);
        if (entry?.silent) return;
        if (!entry) {
          response.header.rcode = 3; // NXDOMAIN
          return send(response);
        }
        if (question.type === Packet.TYPE.CNAME && entry.CNAME) {
          response.answers.push({ name: question.name, type: Packet.TYPE.CNAME, class: Packet.CLASS.IN, ttl: 60, domain: entry.CNAME } as any);
        }
        if (question.type === Packet.TYPE.TXT) {
          for (const value of entry.TXT ?? []) response.answers.push({ name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data: value } as any);
        }
        send(response);
      }
    } as any);
  }

  async start(): Promise<this> {
    await this.server.listen({ udp: { port: 0, address: '127.0.0.1' } } as any);
    const addresses = this.server.addresses() as any;
    this.port = addresses.udp.port;
    return this;
  }

  /** For DNS_SERVERS. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await this.server.close();
  }
}
