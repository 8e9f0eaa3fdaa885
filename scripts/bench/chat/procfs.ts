// What the chat benchmark reads from /proc (Linux): resident memory and CPU time of processes, and
// the machine's CPU time, so the report can say where the time went.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** VmRSS and VmHWM (peak RSS) of a process in MB; NaN when it is gone. */
export function memoryMb(pid: number): { rss: number; hwm: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return { rss: Number.NaN, hwm: Number.NaN };
  }
}

let ticksPerSecond = 0;
function clockTicks(): number {
  if (!ticksPerSecond) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** The fields of /proc/<pid>/stat after the command name: [0] state, [1] ppid, [11] utime, [12] stime. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds used by these processes so far (each thread included). */
export function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const fields = statFields(pid);
    if (fields) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / clockTicks();
}

/** A process and its direct children (PostgreSQL: the postmaster and its backends). */
export function withChildren(pid: number): number[] {
  const found = [pid];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (Number(statFields(Number(entry))?.[1]) === pid) found.push(Number(entry));
  }
  return found;
}

/** The pid in the first line of a pid file (postmaster.pid, redis.pid), if that process runs. */
export function pidFromFile(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0]);
    return pid > 0 && fs.existsSync(`/proc/${pid}`) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Busy and total CPU seconds of the whole machine so far (all cores; idle and iowait are not busy). */
export function machineCpuSeconds(): { busy: number; total: number } {
  const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = values.reduce((s, x) => s + x, 0);
  const idle = (values[3] ?? 0) + (values[4] ?? 0);
  return { busy: (total - idle) / clockTicks(), total: total / clockTicks() };
}
