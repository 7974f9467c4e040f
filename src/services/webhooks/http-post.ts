import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { LRUCache } from 'lru-cache';
import { pinnedLookup } from '../../platform/url-guard.js';

export const DELIVERY_TIMEOUT_MS = 10_000;
const KEPT_BODY_BYTES = 1024;
/** Keep-alive agents kept at once (one per checked destination); the least recently used is retired past it. */
const MAX_AGENTS = 256;
/** An idle kept-alive socket is closed after this (below the 5 s most servers keep one: Node's own default). */
const IDLE_SOCKET_MS = 4_000;

export interface PostResult {
  statusCode: number | null;
  durationMs: number;
  /** The first 1 KB of the response body (UTF-8, cut), or null. */
  body: string | null;
  error: string | null;
}

/**
 * Keep-alive agents, one per checked destination: protocol, port and the exact addresses
 * resolveDestination allowed, each agent's `lookup` pinned to those addresses. A kept socket is
 * therefore only reused for a delivery whose own check gave the same addresses: a name that now
 * resolves elsewhere (rebinding) gets another agent and a new connection to its new, checked
 * address. TLS sessions stay per server name inside an agent (Node names its sockets by it).
 * Bounded: a retired agent keeps no idle socket (its in-flight requests finish).
 */
const agents = new LRUCache<string, http.Agent>({
  max: MAX_AGENTS,
  dispose: (agent) => {
    agent.keepSocketAlive = () => false;
    for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }
});

function agentFor(target: URL, addresses: LookupAddress[]): http.Agent {
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const key = `${target.protocol}//${addresses.map((a) => `${a.family}/${a.address}`).join(',')}:${port}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, scheduling: 'lifo' as const, timeout: IDLE_SOCKET_MS, lookup: pinnedLookup(addresses) as never };
    agent = target.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * The requests in flight under each caller's signal (the worker's shutdown signal lives as long as
 * the process). One abort listener per signal ends them all: a listener per request on that signal
 * was 50 at once at the webhooks queue's concurrency (MaxListenersExceededWarning), and any left
 * behind by a request that never ended would have stayed for the process's life.
 */
const inFlight = new WeakMap<AbortSignal, Set<http.ClientRequest>>();

function trackUnder(signal: AbortSignal, request: http.ClientRequest): () => void {
  let requests = inFlight.get(signal);
  if (!requests) {
    const set = new Set<http.ClientRequest>();
    requests = set;
    inFlight.set(signal, set);
    signal.addEventListener('abort', () => {
      for (const pending of set) pending.destroy(new Error('the worker is shutting down'));
      set.clear();
    }, { once: true });
  }
  requests.add(request);
  return () => requests.delete(request);
}

/**
 * One POST, never following a redirect (a 3xx is an answer like any other non-2xx), to one of
 * `addresses` only (resolved and checked by the caller: url-guard's resolveDestination), and 10 s
 * for the whole exchange. The connection is kept alive for the next delivery to the same checked
 * destination; a kept socket the receiver closed meanwhile (reset before any answer) is tried
 * once more on a new connection, as browsers do, rather than counted as a failed attempt.
 */
export async function postWebhook(url: string, body: string, headers: Record<string, string>, addresses: LookupAddress[], signal?: AbortSignal): Promise<PostResult> {
  const started = Date.now();
  const target = new URL(url);
  if (signal?.aborted) return { statusCode: null, durationMs: 0, body: null, error: 'the worker is shutting down' };
  const first = await postOnce(target, body, headers, addresses, started, signal);
  if (!first.staleSocket) return first.result;
  return (await postOnce(target, body, headers, addresses, started, signal, true)).result;
}

function postOnce(target: URL, body: string, headers: Record<string, string>, addresses: LookupAddress[], started: number, signal?: AbortSignal, freshSocket = false): Promise<{ result: PostResult; staleSocket: boolean }> {
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let untrack: () => unknown = () => undefined;
    const finish = (result: Omit<PostResult, 'durationMs'>, staleSocket = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      untrack();
      resolve({ result: { ...result, durationMs: Date.now() - started }, staleSocket });
    };
    const request = client.request(target, {
      method: 'POST',
      // A retry after a stale kept socket opens its own connection (pinned like the agents').
      ...(freshSocket ? { agent: false, lookup: pinnedLookup(addresses) as never } : { agent: agentFor(target, addresses) }),
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'Shopwright-Webhooks/1', ...headers }
    }, (response) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      response.on('data', (chunk: Buffer) => {
        if (kept < KEPT_BODY_BYTES) {
          chunks.push(chunk.subarray(0, KEPT_BODY_BYTES - kept));
          kept += Math.min(chunk.length, KEPT_BODY_BYTES - kept);
        }
      });
      response.on('end', () => finish({ statusCode: response.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8'), error: null }));
      response.on('error', (error) => finish({ statusCode: response.statusCode ?? null, body: Buffer.concat(chunks).toString('utf8'), error: error.message }));
    });
    if (signal) untrack = trackUnder(signal, request);
    const timer = setTimeout(() => {
      request.destroy(new Error(`no answer within ${DELIVERY_TIMEOUT_MS / 1000} s`));
    }, Math.max(0, DELIVERY_TIMEOUT_MS - (Date.now() - started)));
    request.on('error', (error: NodeJS.ErrnoException) => {
      const stale = !freshSocket && request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE') && !signal?.aborted;
      finish({ statusCode: null, body: null, error: error.message }, stale);
    });
    request.end(body);
  });
}
