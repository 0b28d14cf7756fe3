import { describe, expect, it } from 'vitest';
import { csvCell, csvFileName, toCsv } from '../../../lib/view/csv';

describe('csvCell', () => {
  it('leaves plain values bare and writes unknown as an empty cell, never 0', () => {
    expect(csvCell('abc')).toBe('abc');
    expect(csvCell(12)).toBe('12');
    expect(csvCell(0)).toBe('0');
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(Number.NaN)).toBe('');
    expect(csvCell(true)).toBe('true');
  });

  it('quotes commas, quotes, newlines and edge spaces, doubling inner quotes', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('line1\nline2')).toBe('"line1\nline2"');
    expect(csvCell('cr\rlf')).toBe('"cr\rlf"');
    expect(csvCell(' padded')).toBe('" padded"');
  });

  it('neutralizes text a spreadsheet would run as a formula, but not numbers', () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
    expect(csvCell('+1')).toBe("'+1");
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-2-1')).toBe("'-2-1");
    expect(csvCell(-3)).toBe('-3');
  });
});

describe('toCsv', () => {
  it('writes a header and CRLF-terminated rows that parse back to the values', () => {
    const rows = [
      { id: 'r1', n: 3, note: 'x, "y"' },
      { id: 'r2', n: null, note: 'multi\nline' },
    ];
    const csv = toCsv(
      [
        { header: 'id', value: (r: (typeof rows)[number]) => r.id },
        { header: 'n', value: (r) => r.n },
        { header: 'note', value: (r) => r.note },
      ],
      rows,
    );
    expect(csv).toBe('id,n,note\r\nr1,3,"x, ""y"""\r\nr2,,"multi\nline"\r\n');
  });

  it('an empty view is just the header', () => {
    expect(toCsv([{ header: 'a', value: () => 1 }], [])).toBe('a\r\n');
  });
});

describe('csvFileName', () => {
  it('keeps only safe characters', () => {
    expect(csvFileName('my run/../x', 'rollouts')).toBe('my-run-..-x-rollouts.csv');
    expect(csvFileName('', '')).toBe('export.csv');
  });
});
