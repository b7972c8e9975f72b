import sanitizeHtml from 'sanitize-html';
import { ALLOWED_PROTOCOLS, GLOBAL_ATTRIBUTES, POST_TAGS, TITLE_TAGS, URI_ATTRIBUTES } from './kses-tags.js';

/**
 * WordPress's kses for roles without `unfiltered_html`: markup reduced to an allow-list of
 * elements and attributes, URLs in attributes to the allowed protocols, `style` to harmless
 * declarations. `post` is `wp_filter_post_kses` (descriptions and excerpts), `title` is
 * `wp_filter_kses` (titles, names and one-line fields), `term` the term description's
 * (`pre_term_description`: the title list plus `rel` and `target` on links).
 */
export type KsesContext = 'post' | 'title' | 'term';

const attributesOf = (tags: Record<string, string>, global: string[]) =>
  Object.fromEntries(
    Object.entries(tags).map(([tag, own]) => [tag, [...own.split(' ').filter(Boolean), ...global]]),
  );

const termTags = { ...TITLE_TAGS, a: `${TITLE_TAGS.a} rel target` };
const allowLists: Record<KsesContext, Record<string, string[]>> = {
  post: attributesOf(POST_TAGS, GLOBAL_ATTRIBUTES),
  title: attributesOf(TITLE_TAGS, []),
  term: attributesOf(termTags, []),
};

/** A URL whose scheme (if any) is one WordPress allows; relative URLs have none. */
export function hasAllowedProtocol(url: string): boolean {
  // Browsers ignore control characters and whitespace inside a scheme (`java\tscript:`).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  const compact = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  const scheme = /^([^:/?#]+):/.exec(compact)?.[1];
  return scheme === undefined || ALLOWED_PROTOCOLS.includes(scheme.toLowerCase());
}

/**
 * `safecss_filter_attr`, reduced: declarations whose value holds a `url()` of a refused protocol,
 * or, besides url(), a backslash, a comment, `&`, `=`, `}` or a parenthesis other than
 * WordPress's allowed functions (calc, var, min, max, minmax, clamp, repeat, colors), are dropped.
 */
export function safeCss(css: string): string {
  const kept: string[] = [];
  for (const raw of css.split(';')) {
    const declaration = raw.trim();
    if (declaration === '') continue;
    const colon = declaration.indexOf(':');
    if (colon < 1) continue;
    const property = declaration.slice(0, colon).trim().toLowerCase();
    if (!/^(--[a-z0-9_-]+|[a-z-]+)$/.test(property)) continue;
    let rest = declaration.slice(colon + 1);
    let ok = true;
    for (const match of rest.match(/url\([^)]*\)/gi) ?? []) {
      const url = /^url\(\s*(['"]?)(.*)\1\s*\)$/is.exec(match)?.[2]?.trim() ?? '';
      if (url === '' || !hasAllowedProtocol(url)) ok = false;
      rest = rest.replace(match, '');
    }
    rest = rest.replace(
      /\b(?:calc|var|min|max|minmax|clamp|repeat|rgba?|hsla?|(?:repeating-)?(?:linear|radial|conic)-gradient)\(/gi,
      '',
    );
    if (!ok || /[\\(&}=]|\/\*|expression/i.test(rest)) continue;
    kept.push(`${property}:${declaration.slice(colon + 1).trim()}`);
  }
  return kept.join(';');
}

const optionsOf = (context: KsesContext): sanitizeHtml.IOptions => ({
  allowedTags: Object.keys(allowLists[context]),
  allowedAttributes: allowLists[context],
  allowedSchemes: ALLOWED_PROTOCOLS,
  allowedSchemesAppliedToAttributes: URI_ATTRIBUTES,
  allowProtocolRelative: true,
  // Text of refused elements stays (as kses keeps it), except where it is code or a style sheet.
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'noscript', 'template', 'iframe', 'noembed', 'noframes', 'xmp'],
  // The style attribute goes through safeCss below, not sanitize-html's own CSS parser.
  parseStyleAttributes: false,
  transformTags: {
    '*': (tagName, attribs) => {
      if (attribs.style === undefined) return { tagName, attribs };
      const style = safeCss(attribs.style);
      const { style: _dropped, ...rest } = attribs;
      return { tagName, attribs: style === '' ? rest : { ...rest, style } };
    },
  },
});
const options: Record<KsesContext, sanitizeHtml.IOptions> = {
  post: optionsOf('post'),
  title: optionsOf('title'),
  term: optionsOf('term'),
};

/** `text` with only the markup WordPress lets a role without `unfiltered_html` store. */
export function kses(text: string, context: KsesContext): string {
  // Text without markup or entities comes out unchanged, the common case of a title.
  if (!/[<>&]/.test(text)) return text;
  return sanitizeHtml(text, options[context]);
}
