import { describe, expect, it } from 'vitest';
import { toCsv } from '../../../core/csv.js';

describe('toCsv, the one CSV writer', () => {
  it('quotes by RFC 4180, ends lines with CRLF and leaves null empty', () => {
    expect(
      toCsv(
        ['a', 'b'],
        [
          ['x, y', 'say "hi"'],
          [null, 3],
          ['line\nbreak', true],
        ],
      ),
    ).toBe('a,b\r\n"x, y","say ""hi"""\r\n,3\r\n"line\nbreak",true\r\n');
  });

  it('defuses text a spreadsheet would run as a formula, but keeps plain decimals numbers', () => {
    expect(toCsv(['v'], [['=1+1'], ['+A1'], ['-2+3'], ['@SUM(A1)'], ['\tx'], ['-1.5'], ['-12'], ['0.000000000001']])).toBe(
      "v\r\n'=1+1\r\n'+A1\r\n'-2+3\r\n'@SUM(A1)\r\n'\tx\r\n-1.5\r\n-12\r\n0.000000000001\r\n",
    );
  });
});
