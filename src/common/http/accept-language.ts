/**
 * Of `supported` language tags, the one an `Accept-Language` header prefers, or null when it names none of them
 * (or there is no header). A range matches a supported tag written the same (letter case aside) or of the same
 * primary language (`pt`, `pt-PT` → `pt-BR`; `es-MX` → `es`); the highest `q` wins, the earlier range on a tie;
 * `q=0` refuses a range, `*` names none, a range with a malformed `q` is passed over.
 */
export function preferredLanguage<T extends string>(header: string | string[] | undefined, supported: readonly T[]): T | null {
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return null;
  let best: { tag: T; q: number } | null = null;
  for (const part of text.split(',').slice(0, 50)) {
    const [range, ...params] = part.split(';');
    const tag = range.trim().toLowerCase();
    if (!tag || tag === '*') continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((side) => side.trim());
      if (name.toLowerCase() === 'q') q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value ?? '') ? Number(value) : NaN;
    }
    if (!(q > 0)) continue;
    const primary = tag.split('-')[0];
    const match =
      supported.find((candidate) => candidate.toLowerCase() === tag) ??
      supported.find((candidate) => candidate.toLowerCase().split('-')[0] === primary);
    if (match && (!best || q > best.q)) best = { tag: match, q };
  }
  return best?.tag ?? null;
}
