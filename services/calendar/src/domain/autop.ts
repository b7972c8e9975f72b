/** Block-level tags wpautop leaves unwrapped. */
const blockTags =
  'table|thead|tfoot|caption|col|colgroup|tbody|tr|td|th|div|dl|dd|dt|ul|ol|li|pre|form|map|area|blockquote|address|math|style|p|h[1-6]|hr|fieldset|legend|section|article|aside|hgroup|header|footer|nav|figure|figcaption|details|menu|summary';
const startsWithBlock = new RegExp(`^<(?:${blockTags})[\\s/>]`, 'i');

/**
 * Text as WordPress's `wpautop` renders post content: paragraphs (blank-line separated) wrapped
 * in `<p>…</p>`, single line breaks as `<br />`, blocks that already are HTML blocks left alone,
 * each paragraph followed by a newline. Empty text stays empty.
 */
export function autop(text: string): string {
  const normalized = text.replace(/\r\n?/g, '\n').trim();
  if (normalized === '') return '';
  return normalized
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) =>
      startsWithBlock.test(block) ? `${block}\n` : `<p>${block.replace(/\n/g, '<br />\n')}</p>\n`,
    )
    .join('');
}
