// The ClickHouse backend (on npm chdb) against the SQLite index over NeMo Gym's rollout files, in their key order and
// their producers' shapes: the fixtures tier, and NeMo Gym's own example files where they are present. Every reader
// answer must agree (tests/support/index-parity.ts).
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CallscopeIndex } from '../../../lib/index/callscope-index';
import { ClickhouseIndex } from '../../../lib/index/clickhouse/clickhouse-index';
import { openClient, parseClickhouseUrl } from '../../../lib/index/clickhouse/connection';
import { expectSameAnswers } from '../../support/index-parity';
import { TIERS } from '../../support/nemo-gym-data';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'callscope-clickhouse-nemo-gym-'));
const chdb = parseClickhouseUrl(`chdb:${path.join(tmp, 'chdb')}`);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('the ClickHouse index answers as the SQLite index', () => {
  for (const data of TIERS) {
    describe.skipIf(!data.present)(data.title, () => {
      it('over every NeMo Gym rollouts file: every reader answer', async () => {
        const root = path.join(tmp, `tier-${data.tier}`);
        mkdirSync(root, { recursive: true });
        for (const f of data.files) cpSync(f, path.join(root, path.basename(f)));
        const specs = [{ path: root }];
        const sqlite = await CallscopeIndex.open(specs, path.join(tmp, `${data.tier}-sqlite`));
        await sqlite.refresh();
        const ch = await ClickhouseIndex.open(chdb, specs, path.join(tmp, `${data.tier}-work`), { ingest: true, minFiles: 1 });
        try {
          await ch.refresh();
          const runs = await ch.listRuns();
          expect(runs.length).toBe(data.files.length);
          expect(runs.reduce((n, r) => n + r.totals.rollouts, 0)).toBeGreaterThan(0);
          expect(await expectSameAnswers(sqlite, ch, { rolloutsPerRun: 6 })).toBeGreaterThan(100);
        } finally {
          await ch.close();
          sqlite.close();
          const client = await openClient(chdb);
          await client.command({ query: 'DROP DATABASE IF EXISTS callscope SYNC' });
          await client.close();
        }
      }, 300_000);
    });
  }
});
