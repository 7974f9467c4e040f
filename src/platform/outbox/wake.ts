import type { Knex } from 'knex';
import type { Sql, Transaction } from '../../db/transaction.js';

interface Kickable {
  kick(): Promise<number>;
}

type AnyDb = Knex | Sql;

// Keyed by the knex client config, which a transaction shares with the pool it came from.
const relaysByDatabase = new WeakMap<object, Set<Kickable>>();
const poolsByDatabase = new WeakMap<object, Knex>();

const databaseKey = (db: AnyDb): object => (db as unknown as { client: { config: object } }).client.config;

/** A context's knex pool (createContext registers it), so that a producer without a relay can still wake the relays of other processes. */
export function registerPool(db: Knex): void {
  poolsByDatabase.set(databaseKey(db), db);
}

export function registerRelay(db: Knex, relay: Kickable): () => void {
  const key = databaseKey(db);
  const set = relaysByDatabase.get(key) ?? new Set();
  set.add(relay);
  relaysByDatabase.set(key, set);
  return () => set.delete(relay);
}

/**
 * Once the producer's transaction commits (a savepoint's release is not a commit), wakes this process's relay in-process. Only a process with no running relay sends a
 * NOTIFY for the others. The NOTIFY is never sent inside the producer's transaction: PostgreSQL
 * serialises the commits of notifying transactions on one global lock, which capped subscribe
 * throughput at a few hundred writes a second.
 */
export function wakeRelayAfterCommit(db: AnyDb): void {
  const key = databaseKey(db);
  afterCommit(db).then(
    () => {
      const relays = relaysByDatabase.get(key);
      if (relays?.size) for (const relay of relays) void relay.kick();
      else void poolsByDatabase.get(key)?.raw(`select pg_notify('outbox', '')`).catch(() => undefined);
    },
    () => undefined
  );
}

/** Settles when the handle's transaction ends (at once for the pool itself). */
function afterCommit(db: AnyDb): Promise<unknown> {
  return 'committed' in db ? (db as Transaction).committed : Promise.resolve();
}
