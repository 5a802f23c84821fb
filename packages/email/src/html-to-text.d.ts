// html-to-text ships no types; these cover what render-email.ts uses (its README: `compile`).
declare module 'html-to-text' {
  export interface HtmlToTextOptions {
    wordwrap?: number | false;
    selectors?: readonly { selector: string; format?: string; options?: Record<string, unknown> }[];
  }
  export function compile(options?: HtmlToTextOptions): (html: string) => string;
}
