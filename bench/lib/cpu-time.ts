import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (ms) used so far by the bench server, every PostgreSQL process and this load generator.
 * Per unit of work it is a steadier figure than throughput on a shared 2-core machine: it says
 * where the cycles go whoever else is running.
 */
export interface CpuSnapshot {
  serverMs: number;
  /** Per PostgreSQL process (pid -> ms): a backend that exits between two snapshots must not count negative. */
  postgresMs: Map<number, number>;
  loadGeneratorMs: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU of the PostgreSQL processes serving `database` (a backend's command line names its database),
 * or of every PostgreSQL process when none is given: other work on the machine does not count.
 */
function postgresCpuMs(database?: string): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').trim().startsWith('postgres')) continue;
      if (database && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${database} `)) continue;
      byPid.set(Number(entry), processCpuMs(Number(entry)));
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

export function cpuSnapshot(serverPid: number, database?: string): CpuSnapshot {
  const own = process.cpuUsage();
  return { serverMs: processCpuMs(serverPid), postgresMs: postgresCpuMs(database), loadGeneratorMs: (own.user + own.system) / 1000 };
}

/** PostgreSQL CPU between two snapshots: processes that started meanwhile count from zero, ended ones are lost. */
function postgresDelta(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

export interface CpuPerUnit {
  serverMs: number;
  postgresMs: number;
  loadGeneratorMs: number;
}

/** CPU ms per unit of work between two snapshots, by process. */
export function cpuMsPerUnit(before: CpuSnapshot, after: CpuSnapshot, units: number): CpuPerUnit {
  const per = (ms: number) => (units ? ms / units : 0);
  return {
    serverMs: per(after.serverMs - before.serverMs),
    postgresMs: per(postgresDelta(before.postgresMs, after.postgresMs)),
    loadGeneratorMs: per(after.loadGeneratorMs - before.loadGeneratorMs)
  };
}

/** "server 2.1 ms, PostgreSQL 3.4 ms, load generator 0.9 ms per <unit>" between two snapshots. */
export function cpuPerUnit(before: CpuSnapshot, after: CpuSnapshot, units: number, unit: string): string {
  const cpu = cpuMsPerUnit(before, after, units);
  return `CPU per ${unit}: server ${cpu.serverMs.toFixed(2)} ms, PostgreSQL ${cpu.postgresMs.toFixed(2)} ms, load generator ${cpu.loadGeneratorMs.toFixed(2)} ms`;
}

/** The pid of the local redis-server, if one runs here (its CPU per job counts beside PostgreSQL's). */
export function redisServerPid(): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'redis-server') return Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  return undefined;
}

/** CPU (ms) of the PostgreSQL processes serving `database`, summed. */
export function postgresCpuTotal(database: string): Map<number, number> {
  return postgresCpuMs(database);
}
