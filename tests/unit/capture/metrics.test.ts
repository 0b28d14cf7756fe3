import { describe, expect, it } from 'vitest';
import { serialize } from '../../../lib/capture/json-serialize';
import { aggregateMetrics, neumaierSum } from '../../../lib/capture/metrics';
import { deriveRecord } from '../../../lib/capture/record';
import { makeExchange } from '../../support/exchange';

const rec = (usage: unknown, latency: number | null) => deriveRecord(makeExchange({ latency_ms: latency, response: { usage: usage as never } }), 0);

describe('§4 aggregation', () => {
  it('sums two calls exactly (upstream test)', () => {
    const m = aggregateMetrics([
      rec({ input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 4 } }, 2),
      rec({ input_tokens: 20, output_tokens: 3, total_tokens: 23, input_tokens_details: { cached_tokens: 0 } }, 1),
    ]);
    expect(serialize(m)).toBe('{"tokens_in":30,"tokens_out":8,"tokens_reasoning":null,"tokens_total":38,"cached_tokens":4,"latency_total_ms":3.0,"num_calls":2}');
  });

  it('an empty list gives all sums null and num_calls 0', () => {
    expect(serialize(aggregateMetrics([]))).toBe(
      '{"tokens_in":null,"tokens_out":null,"tokens_reasoning":null,"tokens_total":null,"cached_tokens":null,"latency_total_ms":null,"num_calls":0}',
    );
  });

  it('partial sums are silent: nulls are skipped, not zero', () => {
    const m = aggregateMetrics([rec({ input_tokens: 7, output_tokens: 1 }, null), rec(null, 4.5)]);
    expect(serialize(m)).toBe('{"tokens_in":7,"tokens_out":1,"tokens_reasoning":null,"tokens_total":8,"cached_tokens":null,"latency_total_ms":4.5,"num_calls":2}');
  });

  it('the latency sum is compensated like Python sum(): 0.1 + 0.2 + 0.3 is 0.6', () => {
    expect(neumaierSum([0.1, 0.2, 0.3])).toBe(0.6);
    expect(0.1 + 0.2 + 0.3).not.toBe(0.6);
    expect(neumaierSum([1e100, 1.0, -1e100])).toBe(1.0);
    const m = aggregateMetrics([rec(null, 0.1), rec(null, 0.2), rec(null, 0.3)]);
    expect(serialize(m.latency_total_ms)).toBe('0.6');
  });

  it('token sums stay exact integers beyond 2^53', () => {
    const m = aggregateMetrics([rec({ input_tokens: 9007199254740991 }, 1), rec({ input_tokens: 2 }, 1)]);
    expect(serialize(m.tokens_in)).toBe('9007199254740993');
  });
});
