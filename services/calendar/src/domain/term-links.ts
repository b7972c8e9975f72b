import { kindOfTaxonomy, restBase, type Site, type TermRow, taxonomies } from './render.js';

/** A link of a WordPress `_links` relation: attributes first, then `href`, as WordPress writes them. */
interface Link {
  embeddable?: true;
  href: string;
  targetHints?: { allow: string[] };
}

/**
 * The `_links` WordPress's terms controller puts on a single term (The Events Calendar answers
 * its term GET, create and update with them; its lists and its delete answer none): `self`,
 * `collection`, `about`, `up` (embeddable) for a category with a parent, and the events of the
 * term under `https://api.w.org/post_type`, compacted to `wp:post_type` with its `curies` entry.
 *
 * WordPress points them at its own `wp/v2` routes, which this service does not have (nor does
 * The Events Calendar for categories: its taxonomy is not in `wp/v2`). Here every link leads to a
 * route of this API that answers it: the term and its collection, the API's description (`/doc`,
 * whose `Term` schema describes the taxonomy's objects) and the events of the term (the list's
 * own `categories` / `tags` filter). `self` carries `targetHints.allow`, the methods the caller
 * may use there, as WordPress 6.7+ adds to a `self` link that resolves to a route.
 */
export function termLinks(
  row: Pick<TermRow, 'id' | 'taxonomy'> & { parent?: number },
  site: Site,
  allow: string[],
) {
  const base = restBase(site);
  const kind = kindOfTaxonomy(row.taxonomy);
  const collection = `${base}/${kind}`;
  const self: Link = { href: `${collection}/${row.id}` };
  if (allow.length > 0) self.targetHints = { allow };
  const links: Record<string, Link[] | { name: string; href: string; templated: true }[]> = {
    self: [self],
    collection: [{ href: collection }],
    about: [{ href: `${base}/doc` }],
  };
  if (row.taxonomy !== taxonomies.tags && row.parent) {
    links.up = [{ embeddable: true, href: `${collection}/${row.parent}` }];
  }
  links['wp:post_type'] = [{ href: `${base}/events?${kind}=${row.id}` }];
  links.curies = [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }];
  return links;
}
