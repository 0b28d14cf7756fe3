// `callscope calls`: one rollout's normalized records as JSONL, read like NeMo Gym's tolerant reader (§3.6).
// Damaged lines are reported on stderr with their line numbers and never stop the listing.
import { parseArgs } from 'node:util';
import { attachmentCall, CAPTURE_GAP_CODES } from '../capture/attachment';
import { RolloutIdError } from '../capture/ids';
import { serialize } from '../capture/json-serialize';
import { capturePath, exists, incompletePath, readCaptureEvents } from '../capture/store';
import { UsageError, writeAll, type CliIO } from './io';
import { assertCaptureDir } from './inputs';

const HELP = `usage: callscope calls --capture-dir DIR --rollout-id ID [--include-payloads]

Prints the normalized call records of one rollout as JSONL, in the spec's field order. Without
--include-payloads the request/response payload keys are omitted, as in the rollout attachment.
`;

export async function runCalls(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'capture-dir': { type: 'string' },
      'rollout-id': { type: 'string' },
      'include-payloads': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (!values['capture-dir']) throw new UsageError('--capture-dir is required');
  if (values['rollout-id'] === undefined) throw new UsageError('--rollout-id is required');
  const dir = await assertCaptureDir(values['capture-dir']);
  const rolloutId = values['rollout-id'];
  let file: string;
  let marker: string;
  try {
    file = capturePath(dir, rolloutId);
    marker = incompletePath(dir, rolloutId);
  } catch (err) {
    if (err instanceof RolloutIdError) throw new UsageError(`--rollout-id: ${err.message}`);
    throw err;
  }
  const hasFile = await exists(file);
  const hasMarker = await exists(marker);
  if (!hasFile && !hasMarker) throw new UsageError(`no capture for rollout '${rolloutId}' in ${dir} (no ${rolloutId}.capture.jsonl)`, 1);

  const includePayloads = values['include-payloads'] ?? false;
  let unreadable = 0;
  let records = 0;
  for await (const event of readCaptureEvents(file)) {
    if (event.kind === 'record') {
      records++;
      await writeAll(io.stdout, serialize(attachmentCall(event.record, includePayloads)) + '\n');
    } else {
      unreadable++;
      io.stderr.write(`${file}:${event.line.lineNumber}: unreadable line (call_index ${event.callIndex}): ${event.message}\n`);
    }
  }
  if (unreadable) io.stderr.write(`${file}: ${CAPTURE_GAP_CODES.recordsUnreadable} count=${unreadable}\n`);
  if (hasMarker) io.stderr.write(`${marker}: ${CAPTURE_GAP_CODES.incomplete}: at least one call of this rollout was not persisted\n`);
  else if (records === 0 && unreadable === 0) io.stderr.write(`${file}: ${CAPTURE_GAP_CODES.noRecords}\n`);
  return 0;
}
