// CPU seconds of this process's threads (Linux /proc), by thread name, and of the process as a whole: what a
// benchmark's phase kept busy. Threads that ended (an ingest's workers) count in the process's figure only.
import { readdirSync, readFileSync } from 'node:fs';
import { round } from './stats';

const TICKS_PER_S = 100;

/** CPU seconds (user + system) of each live thread of this process, summed by name (digits at the end dropped). */
function byThread(): Record<string, number> {
  const out: Record<string, number> = {};
  let tasks: string[];
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tasks) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = tid === String(process.pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '#');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** Starts counting; `stop()` gives the CPU seconds since, per thread name (over 0.05 s) and for the whole process. */
export function threadCpu() {
  const before = byThread();
  const cpu0 = process.cpuUsage();
  return () => {
    const after = byThread();
    const cpu = process.cpuUsage(cpu0);
    const threads: Record<string, number> = {};
    for (const [name, s] of Object.entries(after)) {
      const d = s - (before[name] ?? 0);
      if (d > 0.05) threads[name] = round(d, 2);
    }
    return { process_s: round((cpu.user + cpu.system) / 1e6, 2), threads };
  };
}
