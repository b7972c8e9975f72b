/**
 * Incremental text of an open utterance from its rolling re-decodes. A word is shown once two
 * decodes in a row agree on it and on every word before it (local agreement): the last words of
 * a decode of unfinished speech change often, the agreed prefix rarely. Deltas only ever add
 * text, so the deltas of an utterance concatenate to what was shown.
 */

const words = (text: string) =>
  text
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '');

export class PartialText {
  /** Text sent as deltas so far. */
  shown = '';
  private previous: string[] = [];

  /** The new suffix to send for a re-decode's text, or '' when nothing new is agreed. */
  update(text: string): string {
    const current = words(text);
    let agreed = 0;
    while (
      agreed < current.length &&
      agreed < this.previous.length &&
      current[agreed] === this.previous[agreed]
    ) {
      agreed += 1;
    }
    this.previous = current;
    return this.extend(current.slice(0, agreed).join(' '));
  }

  /**
   * The final text of the utterance: the delta that completes what was shown. When the final
   * decode disagrees with what was shown, nothing more is sent (the completed event carries the
   * final transcript either way).
   */
  finish(transcript: string): string {
    return this.extend(transcript.trim());
  }

  private extend(stable: string): string {
    if (stable.length <= this.shown.length || !stable.startsWith(this.shown)) return '';
    // A word boundary must follow what was shown: "test" never grows into "testing" mid-word.
    const rest = stable.slice(this.shown.length);
    if (this.shown !== '' && !rest.startsWith(' ')) return '';
    this.shown = stable;
    return rest;
  }
}
