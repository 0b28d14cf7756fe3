// `callscope <command>`: dispatch to the command modules. Each command parses its own options with
// node:util parseArgs and returns an exit code; bad input is a UsageError printed as one line.
import { processIO, UsageError, type CliIO } from './io';

type Command = (argv: string[], io: CliIO) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'serve the dashboard and API over runs found in PATHs', load: async () => (await import('./serve')).runServe },
  ingest: { summary: 'ingest PATHs into a ClickHouse index (no dashboard)', load: async () => (await import('./ingest')).runIngest },
  attach: { summary: 'attach ng_model_call_capture to rollout lines', load: async () => (await import('./attach')).runAttach },
  proxy: { summary: 'run the standalone capture proxy', load: async () => (await import('./proxy')).runProxy },
  calls: { summary: "print one rollout's normalized call records as JSONL", load: async () => (await import('./calls')).runCalls },
  demo: { summary: 'write a realistic demo data set', load: async () => (await import('./demo')).runDemo },
};

function usage(): string {
  const lines = ['usage: callscope <command> [options]', '', 'commands:'];
  for (const [name, c] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(8)} ${c.summary}`);
  lines.push('', 'Run `callscope <command> --help` for its options.');
  return lines.join('\n') + '\n';
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`callscope: unknown command '${name}'\n${usage()}`);
    return 2;
  }
  try {
    return await (await command.load())(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`callscope ${name}: ${err.message}\n`);
      return err.exitCode;
    }
    const e = err as NodeJS.ErrnoException;
    // A --clickhouse value that names no target, or a database that cannot be used: one line, no stack.
    if (e?.name === 'ClickhouseUrlError' || e?.name === 'ClickhouseUnavailable') {
      io.stderr.write(`callscope ${name}: ${e.message}\n`);
      return e.name === 'ClickhouseUrlError' ? 2 : 1;
    }
    if (e && typeof e.code === 'string' && (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || e.code.startsWith('ERR_PARSE_ARGS'))) {
      io.stderr.write(`callscope ${name}: ${e.message}\n`);
      return 2;
    }
    io.stderr.write(`callscope ${name}: ${e?.stack ?? String(err)}\n`);
    return 1;
  }
}
