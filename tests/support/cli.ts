// Runs the command line in-process with captured output streams.
import { PassThrough } from 'node:stream';
import { main } from '../../lib/cli/main';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[]): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (d) => out.push(d));
  stderr.on('data', (d) => err.push(d));
  const code = await main(argv, { stdout, stderr });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
