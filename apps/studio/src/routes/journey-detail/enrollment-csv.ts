export interface EnrollmentRow {
  userId: string;
  userEmail: string;
}

/**
 * The batch-enroll box: one `userId,email` per line. Cells are trimmed (so Windows line ends go
 * too), a `userId,…` header line and lines without both cells are skipped, and further columns are
 * ignored, so a spreadsheet export pastes as it is.
 */
export function parseEnrollmentCsv(text: string): EnrollmentRow[] {
  return text
    .split('\n')
    .map((line) => line.split(',').map((cell) => cell.trim()))
    .filter(([id, email]) => id !== undefined && id !== '' && email !== undefined && email !== '' && id !== 'userId')
    .map(([id, email]) => ({ userId: id ?? '', userEmail: email ?? '' }));
}
