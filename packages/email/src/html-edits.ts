/** A replacement of `html.slice(start, end)` (end exclusive; start = end inserts) by `text`. */
export interface HtmlEdit {
  start: number;
  end: number;
  text: string;
}

/**
 * The HTML with each edit applied; edits may come in any order but must not overlap. Positions
 * come from the parser (htmlparser2's `startIndex`/`endIndex`), so everything outside the edits
 * stays byte for byte as rendered.
 */
export function applyHtmlEdits(html: string, edits: readonly HtmlEdit[]): string {
  const ordered = [...edits].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const edit of ordered) {
    parts.push(html.slice(at, edit.start), edit.text);
    at = edit.end;
  }
  parts.push(html.slice(at));
  return parts.join('');
}
