// The rollout attachment `ng_model_call_capture` (spec §5.1): what NeMo Gym's collector merge attaches to a
// rollout line, with the four capture gap codes in their precedence order.
import { type JsonObject } from './json-value';
import { aggregateMetrics } from './metrics';
import { PAYLOAD_FIELDS, RECORD_FIELDS, type ModelCallRecord } from './record';
import { capturePath, exists, incompletePath, readCaptureFile, type ReadProblem } from './store';

export const CAPTURE_GAP_CODES = {
  noRecords: 'model_call_capture_no_records',
  recordsUnreadable: 'model_call_capture_records_unreadable',
  incomplete: 'model_call_capture_incomplete',
  unreadable: 'model_call_capture_unreadable',
} as const;

export interface Gap {
  code: string;
  invocation_id?: string | null;
  detail?: string | null;
}

export interface CaptureEvidence {
  /** The capture dir that holds the rollout's file or marker, or null when none does. */
  captureDir: string | null;
  records: ModelCallRecord[];
  gaps: Gap[];
  problems: ReadProblem[];
  /** The exception that made the capture unreadable, when one did. */
  error?: Error;
}

/** §5.1's gap rules for a capture that was found (file or marker) and read without raising. */
export function captureGaps(unreadable: number, marker: boolean, validCalls: number): Gap[] {
  const gaps: Gap[] = [];
  if (unreadable > 0) gaps.push({ code: CAPTURE_GAP_CODES.recordsUnreadable, detail: `count=${unreadable}` });
  if (marker) gaps.push({ code: CAPTURE_GAP_CODES.incomplete });
  else if (validCalls === 0 && unreadable === 0) gaps.push({ code: CAPTURE_GAP_CODES.noRecords });
  return gaps;
}

/** Reads one rollout's capture from the first dir holding its file or marker, and derives its gaps. */
export async function collectCapture(captureDirs: string[], rolloutId: string, includePayloads: boolean): Promise<CaptureEvidence> {
  let captureDir: string | null = null;
  for (const dir of captureDirs) {
    if ((await exists(capturePath(dir, rolloutId))) || (await exists(incompletePath(dir, rolloutId)))) {
      captureDir = dir;
      break;
    }
  }
  if (captureDir === null) {
    return { captureDir, records: [], gaps: [{ code: CAPTURE_GAP_CODES.noRecords }], problems: [] };
  }
  try {
    const read = await readCaptureFile(capturePath(captureDir, rolloutId), { includePayloads });
    const marker = await exists(incompletePath(captureDir, rolloutId));
    const gaps = captureGaps(read.unreadable, marker, read.records.length);
    return { captureDir, records: read.records, gaps, problems: read.problems };
  } catch (error) {
    return { captureDir, records: [], gaps: [{ code: CAPTURE_GAP_CODES.unreadable }], problems: [], error: error as Error };
  }
}

/** A call in the attachment: every record field; payload keys omitted, or present (null when absent). */
export function attachmentCall(record: ModelCallRecord, includePayloads: boolean): JsonObject {
  const call: JsonObject = {};
  for (const key of RECORD_FIELDS) {
    const isPayload = (PAYLOAD_FIELDS as readonly string[]).includes(key);
    if (isPayload && !includePayloads) continue;
    call[key] = record[key] ?? null;
  }
  return call;
}

/** A gap serialized with its null fields omitted. */
export function gapJson(gap: Gap): JsonObject {
  const out: JsonObject = { code: gap.code };
  if (gap.invocation_id !== undefined && gap.invocation_id !== null) out.invocation_id = gap.invocation_id;
  if (gap.detail !== undefined && gap.detail !== null) out.detail = gap.detail;
  return out;
}

export function buildAttachment(rolloutId: string, evidence: CaptureEvidence, includePayloads: boolean): JsonObject {
  const attachment: JsonObject = {
    rollout_id: rolloutId,
    metrics: aggregateMetrics(evidence.records),
    calls: evidence.records.map((r) => attachmentCall(r, includePayloads)),
  };
  if (evidence.gaps.length) attachment.gaps = evidence.gaps.map(gapJson);
  return attachment;
}
