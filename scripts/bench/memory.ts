// Memory of a process, as the reports record it: VmRSS / VmHWM from /proc (Linux), and a sampler of this
// process's peaks over a measurement.
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';

/** VmRSS and VmHWM (peak RSS) of a process in kB; nulls when /proc has no such process. */
export function vmStatus(pid: number | 'self'): { rss_kb: number | null; hwm_kb: number | null } {
  try {
    const text = readFileSync(`/proc/${pid}/status`, 'utf8');
    const get = (k: string) => {
      const m = new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text);
      return m ? Number(m[1]) : null;
    };
    return { rss_kb: get('VmRSS'), hwm_kb: get('VmHWM') };
  } catch {
    return { rss_kb: null, hwm_kb: null };
  }
}

/** The RSS of a live process in MiB; throws when it is gone. */
export function rssMb(pid: number): number {
  const kb = vmStatus(pid).rss_kb;
  if (kb === null) throw new Error(`no RSS for process ${pid}`);
  return kb / 1024;
}

/** Samples this process's memory every `periodMs`; `stop()` returns the peaks with the kernel's and V8's own. */
export function memSampler(periodMs: number) {
  const peak = { rss: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
  const sample = () => {
    const m = process.memoryUsage();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
    peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
  };
  const timer = setInterval(sample, periodMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { sampled_peak: peak, max_rss_bytes: process.resourceUsage().maxRSS * 1024, vm: vmStatus('self'), peak_malloced: v8.getHeapStatistics().peak_malloced_memory };
    },
  };
}
