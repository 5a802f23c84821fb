/**
 * The OWASP rule against CSV injection
 * (https://owasp.org/www-community/attacks/CSV_Injection): a spreadsheet runs a cell that begins
 * with `=`, `+`, `-`, `@`, tab or carriage return as a formula (`=HYPERLINK(…)` from a contact's
 * externalId), so such a cell is written with a leading `'`, which spreadsheets read as "text".
 */
const FORMULA_START = /^[=+\-@\t\r]/;

export function neutralizeFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}
