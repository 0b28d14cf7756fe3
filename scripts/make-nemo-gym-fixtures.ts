// Writes tests/fixtures/nemo-gym/: rollout files of our own making in the shapes of NeMo Gym's example rollout
// files (spec §8; what each mirrors is in that folder's README). The tests read these everywhere, and the real
// files only where they are present. Seeded and deterministic: the same seed gives the same bytes, and a
// test holds the committed files equal to this script's output.
//
//   npx tsx scripts/make-nemo-gym-fixtures.ts            # (re)writes the files
//   npx tsx scripts/make-nemo-gym-fixtures.ts --check    # exit 1 if the committed files differ
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Rng } from '../lib/demo/random';
import { anysweClaudeCode } from './nemo-gym-fixtures/anyswe';
import { browsecomp } from './nemo-gym-fixtures/browsecomp';
import { hermesMath } from './nemo-gym-fixtures/hermes';
import { dumps, type Py, type Style } from './nemo-gym-fixtures/py-json';
import { mcqa, stringMatch } from './nemo-gym-fixtures/simple';
import { tau2 } from './nemo-gym-fixtures/tau2';
import { workplaceAssistant } from './nemo-gym-fixtures/workplace';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const NEMO_GYM_FIXTURES_DIR = path.join(ROOT, 'tests', 'fixtures', 'nemo-gym');
const SEED = 'callscope-nemo-gym-fixtures';

interface FixtureFile {
  rows: (rng: Rng) => Py[];
  /** As the real file is written: orjson/compact `json.dumps`, or plain `json.dumps`. */
  style: Style;
  /** The real workplace_assistant file ends without a newline after its last line. */
  finalNewline: boolean;
}

const FILES: Record<string, FixtureFile> = {
  'string_match.jsonl': { rows: stringMatch, style: 'compact', finalNewline: true },
  'mcqa.jsonl': { rows: mcqa, style: 'spaced', finalNewline: true },
  'hermes_agent_math.jsonl': { rows: hermesMath, style: 'compact', finalNewline: true },
  'anyswe_claude_code.jsonl': { rows: anysweClaudeCode, style: 'compact', finalNewline: true },
  'workplace_assistant.jsonl': { rows: workplaceAssistant, style: 'spaced', finalNewline: false },
  'tau2.jsonl': { rows: tau2, style: 'compact', finalNewline: true },
  'browsecomp.jsonl': { rows: browsecomp, style: 'compact', finalNewline: true },
};

/** Every fixture file's name and bytes. */
export function nemoGymFixtures(): Map<string, string> {
  const root = new Rng(SEED);
  const out = new Map<string, string>();
  for (const [name, f] of Object.entries(FILES)) {
    const text = f.rows(root.fork(name)).map((row) => dumps(row, f.style)).join('\n');
    out.set(name, f.finalNewline ? text + '\n' : text);
  }
  return out;
}

function main(): number {
  const check = process.argv.includes('--check');
  let differ = 0;
  for (const [name, text] of nemoGymFixtures()) {
    const file = path.join(NEMO_GYM_FIXTURES_DIR, name);
    if (check) {
      let committed = '';
      try {
        committed = readFileSync(file, 'utf8');
      } catch {
        // missing: differs
      }
      if (committed !== text) {
        console.error(`${path.relative(ROOT, file)}: differs from the generator's output`);
        differ++;
      }
    } else {
      writeFileSync(file, text);
      console.log(`${path.relative(ROOT, file)}: ${text.split('\n').filter(Boolean).length} lines, ${Buffer.byteLength(text)} bytes`);
    }
  }
  return differ ? 1 : 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exit(main());
