/** Text or an attribute value made safe inside HTML: the five characters that could end or open markup become character references. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
