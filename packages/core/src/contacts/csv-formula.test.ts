import { describe, expect, it } from 'vitest';
import { neutralizeFormula } from './csv-formula';

describe('neutralizeFormula (the OWASP CSV injection rule)', () => {
  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\t=1', '\r=1', '=HYPERLINK("https://evil.example","x")'])("prefixes %j with '", (cell) => {
    expect(neutralizeFormula(cell)).toBe(`'${cell}`);
  });

  it.each(['', 'user-1', 'a=1', '{"plan":"=1"}', "'=1", ' =1', '2026-11-28T00:00:00.000Z'])('leaves %j as it is', (cell) => {
    expect(neutralizeFormula(cell)).toBe(cell);
  });
});
