import { loadConfig, type Config } from './config.js';
import { chooseDatabase } from './db/embedded-postgres/entry.js';
import { atExit } from './lifecycle.js';
import { createLogger, type Logger } from './logger.js';

/**
 * What every long-running entry point starts from: the configuration (production refuses missing
 * or weak settings, DATABASE_URL included) with its database chosen: DATABASE_URL, or else the
 * embedded PostgreSQL under `.data/pg`, started or reused here and left at exit (the last process
 * to leave stops it).
 */
export async function boot(env: NodeJS.ProcessEnv = process.env): Promise<{ config: Config; log: Logger }> {
  const config = loadConfig(env);
  const log = createLogger(config.logLevel, config.logFormat);
  const database = await chooseDatabase(env, (message, fields) => log.info(fields, message));
  atExit(() => database.release());
  return { config: { ...config, databaseUrl: database.url }, log };
}
