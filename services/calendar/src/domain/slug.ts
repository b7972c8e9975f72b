/** WordPress-like slug: lower case ASCII words joined by dashes. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** `base` when free, else the first free `base-2`, `base-3`... */
export function uniqueSlug(base: string, taken: Set<string>): string {
  const root = base || 'untitled';
  if (!taken.has(root)) return root;
  for (let n = 2; ; n++) {
    if (!taken.has(`${root}-${n}`)) return `${root}-${n}`;
  }
}
