// `callscope demo`: writes the seeded demo data set (lib/demo) and prints a short summary.
import { parseArgs } from 'node:util';
import { DEFAULT_SEED, DemoOutputError, generateDemo, type DemoSummary } from '../demo/generate';
import { UsageError, type CliIO } from './io';

const HELP = `usage: callscope demo [--out DIR] [--seed S] [--rollouts N] [--calls M]

Writes a realistic, seeded NeMo Gym capture data set: several runs (a rollouts.jsonl, maybe
rollouts_failures.jsonl, and a captures/ dir each; one run with only rollouts, one with only captures)
covering all three dialects, streaming, tool calls, reasoning, judge and tool-model calls, cached
tokens, HTTP errors with retries, truncated and failed streams, rollout retries, incomplete markers
and a damaged capture line. The same seed always gives byte-identical output.

options:
  --out DIR       where to write (default .callscope/demo); must be missing, empty, or an earlier
                  demo output (it holds a .callscope-demo marker), which is replaced
  --seed S        seed of the random choices (default "${DEFAULT_SEED}")
  --rollouts N    benchmark corpus: one run named "bench" with exactly N rollouts
  --calls M       ... and exactly M model calls in total (default 8 per rollout; with only
                  --calls, N is M/8 rounded up). Corpora of 20,000 calls or more are generated
                  on two worker threads; the output is the same either way.
`;

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--${name} must be a non-negative integer, got '${value}'`);
  }
  return Number(value);
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

function report(s: DemoSummary, seconds: number): string {
  const lines = [`callscope demo: wrote ${s.runs.length} run${s.runs.length > 1 ? 's' : ''}, ${s.rollouts} rollouts, ${s.calls} calls, ${formatBytes(s.bytes)} in ${seconds.toFixed(1)}s to ${s.out}`];
  const width = Math.max(...s.runs.map((r) => r.name.length));
  for (const r of s.runs) {
    const layout = r.layout === 'full' ? '' : r.layout === 'rollouts-only' ? '  (rollouts file only)' : '  (capture dir only)';
    const failed = r.failedAttempts ? ` (+${r.failedAttempts} failed attempt${r.failedAttempts > 1 ? 's' : ''})` : '';
    lines.push(`  ${r.name.padEnd(width)}  ${r.rollouts} rollouts${failed}, ${r.calls} calls, ${formatBytes(r.bytes)}${layout}`);
  }
  return lines.join('\n') + '\n';
}

/** `--calls -5` reads as a value, so that it is reported as a bad number rather than a missing argument. */
function joinNegativeValues(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if ((argv[i] === '--rollouts' || argv[i] === '--calls') && /^-\d/.test(argv[i + 1] ?? '')) out.push(`${argv[i]}=${argv[++i]}`);
    else out.push(argv[i]);
  }
  return out;
}

export async function runDemo(argv: string[], io: CliIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: joinNegativeValues(argv),
      options: {
        out: { type: 'string', default: '.callscope/demo' },
        seed: { type: 'string' },
        rollouts: { type: 'string' },
        calls: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message.split('\n')[0]);
  }
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const rollouts = count('rollouts', values.rollouts);
  const calls = count('calls', values.calls);
  if (rollouts === 0) throw new UsageError('--rollouts must be at least 1');
  if (values.seed === '') throw new UsageError('--seed must not be empty');
  if (!values.out) throw new UsageError('--out must not be empty');
  const started = performance.now();
  try {
    const summary = await generateDemo({ out: values.out, seed: values.seed, rollouts, calls });
    io.stdout.write(report(summary, (performance.now() - started) / 1000));
  } catch (err) {
    if (err instanceof DemoOutputError) throw new UsageError(err.message);
    throw err;
  }
  return 0;
}
