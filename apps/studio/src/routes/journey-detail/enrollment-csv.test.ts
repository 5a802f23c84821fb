import { describe, expect, it } from 'vitest';
import { parseEnrollmentCsv } from './enrollment-csv';

describe('parseEnrollmentCsv', () => {
  it('reads one userId,email per line, trimmed', () => {
    expect(parseEnrollmentCsv('u-1,ada@example.com\n  u-2 ,  bob@example.com  ')).toEqual([
      { userId: 'u-1', userEmail: 'ada@example.com' },
      { userId: 'u-2', userEmail: 'bob@example.com' },
    ]);
  });

  it('skips the header line, blank lines and lines missing a cell', () => {
    expect(parseEnrollmentCsv('userId,email\n\nu-1,ada@example.com\nu-2\n,carol@example.com\nu-3,\n')).toEqual([
      { userId: 'u-1', userEmail: 'ada@example.com' },
    ]);
  });

  it('takes Windows line ends and ignores further columns', () => {
    expect(parseEnrollmentCsv('userId,email,plan\r\nu-1,ada@example.com,pro\r\nu-2,bob@example.com\r\n')).toEqual([
      { userId: 'u-1', userEmail: 'ada@example.com' },
      { userId: 'u-2', userEmail: 'bob@example.com' },
    ]);
  });

  it('answers nothing for an empty box', () => {
    expect(parseEnrollmentCsv('')).toEqual([]);
    expect(parseEnrollmentCsv('   \n  ')).toEqual([]);
  });
});
