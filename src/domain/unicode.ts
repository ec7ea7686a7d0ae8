/*
 * Text that is not valid Unicode: a lone UTF-16 surrogate is legal in JSON ("\ud800") and in a JS
 * string, but has no UTF-8 form, so the store would keep U+FFFD in its place. Two different values
 * would become one, and a stored value would never again equal the one it is looked up by
 * (docs/api.md#requests).
 */

type Node = { value: unknown; parent?: Node; key?: string };

function pathOf(node: Node): string {
  const keys: string[] = [];
  for (let at: Node | undefined = node; at?.key !== undefined; at = at.parent) keys.push(at.key.toWellFormed());
  return keys.reverse().join('.');
}

/**
 * The dotted paths (`line_items.0.sku`, '' for the value itself) of the strings and object keys of
 * a parsed JSON value that are not well-formed, in document order. Iterative, because a 64 KiB
 * body can nest 30,000 levels deep; a path is built only for what is found.
 */
export function malformedStrings(value: unknown): string[] {
  const found: string[] = [];
  const stack: Node[] = [{ value }];
  for (let node = stack.pop(); node; node = stack.pop()) {
    const { value: v, key } = node;
    if ((key !== undefined && !key.isWellFormed()) || (typeof v === 'string' && !v.isWellFormed())) found.push(pathOf(node));
    if (typeof v === 'object' && v !== null && !ArrayBuffer.isView(v)) {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i][1], parent: node, key: entries[i][0] });
    }
  }
  return found;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The text with each lone surrogate written as its JSON escape (`\ud800`); well-formed text is unchanged. */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(LONE_SURROGATE, (unit) => `\\u${unit.charCodeAt(0).toString(16)}`);
}
