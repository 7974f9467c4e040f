import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (ms) used so far by the bench server, every PostgreSQL process and this load generator.
 * Per unit of work it is a steadier figure than throughput on a shared 2-core machine: it says
 * where the cycles go whoever else is running.
 */
export interface CpuSnapshot {
  serverMs: number;
  postgresMs: number;
  loadGeneratorMs: number;
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * Every postgres process, or with `database` only the backends connected to it (their title names
 * it): other work on the machine (a test run) then does not count, nor do the background writers.
 */
function postgresCpuMs(database?: string): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/comm`, 'utf8').trim().startsWith('postgres')) continue;
      if (database && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(` ${database} `)) continue;
      total += processCpuMs(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

export function cpuSnapshot(serverPid: number, database?: string): CpuSnapshot {
  const own = process.cpuUsage();
  return { serverMs: processCpuMs(serverPid), postgresMs: postgresCpuMs(database), loadGeneratorMs: (own.user + own.system) / 1000 };
}

/** "server 2.1 ms, PostgreSQL 3.4 ms, load generator 0.9 ms per <unit>" between two snapshots. */
export function cpuPerUnit(before: CpuSnapshot, after: CpuSnapshot, units: number, unit: string): string {
  const per = (a: number, b: number) => (units ? (b - a) / units : 0).toFixed(2);
  return `CPU per ${unit}: server ${per(before.serverMs, after.serverMs)} ms, PostgreSQL ${per(before.postgresMs, after.postgresMs)} ms, load generator ${per(before.loadGeneratorMs, after.loadGeneratorMs)} ms`;
}
