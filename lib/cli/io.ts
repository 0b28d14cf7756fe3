// Shared pieces of the command line: output streams and the one-line error convention.
import type { Writable } from 'node:stream';

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
}

export const processIO: CliIO = { stdout: process.stdout, stderr: process.stderr };

/** A bad-input failure: printed as one line `callscope <command>: <message>`, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export function writeAll(stream: Writable, text: string | Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stream.write(text)) resolve();
    else {
      stream.once('drain', resolve);
      stream.once('error', reject);
    }
  });
}
