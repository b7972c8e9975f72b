/**
 * WordPress's `is_email`: at least 6 characters (so `a@b.c` is refused there too), no minimum TLD
 * length (`ab@c.d`), a local part of the characters it allows, a domain of at least two dot-separated labels of letters, digits and inner hyphens.
 */
export function isEmail(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.indexOf('@', 1);
  if (at < 1 || at !== value.lastIndexOf('@')) return false;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1);
  if (!/^[a-zA-Z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local)) return false;
  if (domain.includes('..') || /^[.]|[.]$/.test(domain)) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i.test(label));
}
