// `callscope attach`: NeMo Gym's collector merge (spec §5.1) applied to an existing rollouts file. Lines with
// a derivable rollout id get `ng_model_call_capture`; all other lines pass through byte for byte. Output goes
// to a temporary file first, so bad input leaves nothing behind and never overwrites the output.
import { createWriteStream, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mergeCaptureIntoLine } from '../rollouts/merge-capture';
import { RolloutIdError } from '../capture/ids';
import { isJsonObject } from '../capture/json-value';
import { JsonSyntaxError, parsePython } from '../capture/json-parse';
import { serialize } from '../capture/json-serialize';
import { collectRolloutLine } from '../rollouts/collect-line';
import { readLines, stripAscii } from '../capture/store';
import { UsageError, writeAll, type CliIO } from './io';
import { assertCaptureDir, assertReadableFile } from './inputs';

const HELP = `usage: callscope attach --capture-dir DIR --input ROLLOUTS.jsonl [--output OUT.jsonl] [--include-payloads] [--trajectory]

Sets ng_model_call_capture on every rollout line with a derivable rollout id, exactly as NeMo Gym's
collector merge does (a line's ng_agent_observations is joined with the calls and rewritten in
normalized form). Other lines pass unchanged. Writes to stdout without --output.

--trajectory  the collector's whole post-processing: the merge (payloads included unless the line has the
              multimodal_history_redacted gap), the ng_trajectory projection and the payload stripping.
`;

export async function runAttach(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'capture-dir': { type: 'string' },
      input: { type: 'string' },
      output: { type: 'string' },
      'include-payloads': { type: 'boolean', default: false },
      trajectory: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (!values['capture-dir']) throw new UsageError('--capture-dir is required');
  if (!values.input) throw new UsageError('--input is required');
  if (values.trajectory && values['include-payloads']) throw new UsageError('--trajectory decides payloads itself (as the collector does); drop --include-payloads');
  const captureDir = await assertCaptureDir(values['capture-dir']);
  const input = await assertReadableFile(values.input, 'input');
  const output = values.output ? path.resolve(values.output) : null;
  if (output && output === path.resolve(input)) throw new UsageError(`--output ${values.output} is the input file; choose another path`);

  const temp = output
    ? path.join(path.dirname(output), `.${path.basename(output)}.tmp-${process.pid}`)
    : path.join(os.tmpdir(), `callscope-attach-${process.pid}-${Date.now()}.jsonl`);
  const includePayloads = values['include-payloads'] ?? false;
  let written = false;
  try {
    await attachFile(input, [captureDir], values.trajectory ? 'trajectory' : includePayloads, temp);
    written = true;
  } finally {
    if (!written) await fsp.rm(temp, { force: true });
  }
  if (output) {
    await fsp.rename(temp, output);
  } else {
    try {
      const handle = await fsp.open(temp, 'r');
      try {
        for await (const chunk of handle.createReadStream()) await writeAll(io.stdout, chunk as Buffer);
      } finally {
        await handle.close();
      }
    } finally {
      await fsp.rm(temp, { force: true });
    }
  }
  return 0;
}

/**
 * Streams `input` to `dest`, merging captures line by line; `'trajectory'` runs the collector's whole
 * post-processing instead. Throws UsageError naming file:line on bad input.
 */
export async function attachFile(input: string, captureDirs: string[], mode: boolean | 'trajectory', dest: string): Promise<void> {
  const out = createWriteStream(dest, { flags: 'wx' });
  const closed = new Promise<void>((resolve, reject) => {
    out.on('close', resolve);
    out.on('error', reject);
  });
  const handle = await fsp.open(input, 'r');
  try {
    for await (const line of readLines(handle)) {
      const where = `${input}:${line.lineNumber}`;
      let text: Buffer = line.bytes;
      if (stripAscii(line.bytes).length > 0) {
        let value;
        try {
          value = parsePython(line.bytes);
        } catch (err) {
          if (err instanceof JsonSyntaxError) throw new UsageError(`${where}: not a JSON rollout line (${err.message})`);
          throw err;
        }
        try {
          if (mode === 'trajectory') {
            if (isJsonObject(value) && (await collectRolloutLine(value, captureDirs))) text = Buffer.from(serialize(value), 'utf8');
          } else {
            const merged = await mergeCaptureIntoLine(value, captureDirs, mode);
            if (merged.line) text = Buffer.from(serialize(merged.line), 'utf8');
          }
        } catch (err) {
          if (err instanceof RolloutIdError) throw new UsageError(`${where}: ${err.message}`);
          throw new UsageError(`${where}: ${(err as Error).message}`);
        }
      }
      if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
      if (!out.write('\n')) await new Promise<void>((r) => out.once('drain', () => r()));
    }
  } finally {
    await handle.close();
    out.end();
    await closed;
  }
}
