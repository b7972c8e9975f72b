/**
 * The sentence-aware translator of one caption track.
 *
 * Captions cut sentences, and translating the pieces alone moves words across the cuts. So each
 * caption's pieces are kept with the sentence they belong to:
 *
 * - A caption's first translation goes out at once, never waiting for its sentence to end: the
 *   open sentence so far (its earlier pieces and this caption's part) is translated, and this
 *   caption shows the words of that translation the earlier pieces do not show yet.
 * - When a sentence ends (in this caption, or within it: "budget. Next item"), the whole sentence
 *   is translated and split among its pieces by aligning the new translation with what each piece
 *   shows; a piece whose share changed gets a correction (same id). The latest text per id, in
 *   order, is then the sentence-by-sentence translation.
 * - A caption with an id seen before is a correction of the original: its sentences are
 *   translated again, and every piece whose share changed is corrected.
 *
 * One engine call per step (every sentence the caption touches, as one batch), with the sentence
 * before as context. The state is plain data (JSON), bounded, and never changed in place: a failed
 * call (EngineError) leaves the caller's state as it was, so the step can simply be retried.
 */
import { EngineError } from './errors.js';
import { splitSentences } from './sentences.js';
import { splitShares, unshownWords, words } from './shares.js';
import { protectTerms } from './terms.js';

export type CaptionId = string | number;

export interface SourceCaption {
  id: CaptionId;
  text: string;
}

export interface Publication {
  id: CaptionId;
  text: string;
  /** A new text for an id already published. */
  correction: boolean;
}

/** Translates `texts` in order; `context`: the text before them (only informs the translation). */
export type TranslateTexts = (texts: string[], context?: string) => Promise<string[]>;

interface TrackPiece {
  /** Source text of the piece. */
  text: string;
  /** It ends its sentence (by punctuation, or closed for being too long). */
  end: boolean;
  /** The words of the translation this piece shows now (what was published for it). */
  share: string;
}

interface TrackCaption {
  id: CaptionId;
  pieces: TrackPiece[];
}

/** What the translator of one track remembers; JSON-serialisable. */
export interface TrackState {
  v: 1;
  /** The latest captions, oldest first: all of the open sentence's, and a few before it. */
  captions: TrackCaption[];
  /** Ids of captions no longer remembered: a caption with one of them is a late correction. */
  forgotten: CaptionId[];
}

export const TRACK_LIMITS = {
  /** Captions remembered besides the open sentence's (how far back a correction re-splits a sentence). */
  captions: 12,
  /** An open sentence is closed (translated as a whole) past this many pieces... */
  openPieces: 10,
  /** ...or this many words: speech without punctuation still settles. */
  openWords: 80,
  /** Ids of forgotten captions kept, to tell a late correction from a new caption. */
  forgotten: 1000,
  /** Characters of the preceding sentence given as context. */
  context: 1000,
} as const;

export function emptyTrackState(): TrackState {
  return { v: 1, captions: [], forgotten: [] };
}

/**
 * After a clear: the open sentence and the captions are forgotten (a later correction of one of
 * them is translated on its own); the ids stay known.
 */
export function clearTrackState(state: TrackState): TrackState {
  const forgotten = [...state.forgotten, ...state.captions.map((caption) => caption.id)];
  return { v: 1, captions: [], forgotten: forgotten.slice(-TRACK_LIMITS.forgotten) };
}

interface PieceRef {
  caption: number;
  piece: number;
}

const shareOf = (caption: TrackCaption) =>
  caption.pieces
    .map((piece) => piece.share)
    .filter((share) => share !== '')
    .join(' ');

/** Consecutive pieces, each group ending a sentence, the last one perhaps open. */
function sentencesOf(captions: TrackCaption[]): { refs: PieceRef[]; closed: boolean }[] {
  const groups: { refs: PieceRef[]; closed: boolean }[] = [];
  let current: PieceRef[] = [];
  captions.forEach((caption, c) => {
    caption.pieces.forEach((piece, p) => {
      current.push({ caption: c, piece: p });
      if (piece.end) {
        groups.push({ refs: current, closed: true });
        current = [];
      }
    });
  });
  if (current.length > 0) groups.push({ refs: current, closed: false });
  return groups;
}

async function translateProtected(
  translate: TranslateTexts,
  texts: string[],
  keep: readonly string[],
  context?: string,
): Promise<string[]> {
  if (texts.length === 0) return [];
  const prepared = protectTerms(texts, keep, context);
  const translated =
    prepared.context !== undefined && prepared.context !== ''
      ? await translate(prepared.texts, prepared.context)
      : await translate(prepared.texts);
  if (!Array.isArray(translated) || translated.length !== texts.length)
    throw new EngineError(
      `the engine gave ${translated?.length ?? 'no'} translations for ${texts.length} texts`,
      {
        code: 'engine_bad_answer',
        retryable: false,
      },
    );
  return translated.map((text) => prepared.restore(text));
}

/** A late correction of a forgotten caption: translated on its own, sentence by sentence. */
async function translateAlone(
  caption: SourceCaption,
  translate: TranslateTexts,
  keep: readonly string[],
): Promise<string> {
  const pieces = splitSentences(caption.text);
  const translated = await translateProtected(
    translate,
    pieces.map((piece) => piece.text),
    keep,
  );
  return translated.flatMap(words).join(' ');
}

function remember(forgotten: CaptionId[], ids: CaptionId[]): CaptionId[] {
  if (ids.length === 0) return forgotten;
  return [...forgotten, ...ids].slice(-TRACK_LIMITS.forgotten);
}

/**
 * One caption of the track's original: the publications it causes (corrections of other ids
 * first, in caption order; the caption's own translation last) and the next state. Throws the
 * translate function's error (an EngineError) without changing anything.
 */
export async function translateStep(
  state: TrackState,
  caption: SourceCaption,
  translate: TranslateTexts,
  options: { keep: readonly string[] },
): Promise<{ state: TrackState; publications: Publication[] }> {
  const keep = options.keep;
  const captions: TrackCaption[] = state.captions.map((entry) => ({
    id: entry.id,
    pieces: entry.pieces.map((piece) => ({ ...piece })),
  }));
  let target = captions.findIndex((entry) => entry.id === caption.id);
  const correction = target >= 0;

  if (!correction && state.forgotten.includes(caption.id)) {
    const text = await translateAlone(caption, translate, keep);
    return { state, publications: [{ id: caption.id, text, correction: true }] };
  }

  const pieces = splitSentences(caption.text).map((piece) => ({ ...piece, share: '' }));
  if (correction) {
    const before = captions[target]!;
    const same =
      before.pieces.map((piece) => piece.text).join(' ') === pieces.map((piece) => piece.text).join(' ');
    // The same text again: the same translation, published again as asked.
    if (same) return { state, publications: [{ id: caption.id, text: shareOf(before), correction: true }] };
    captions[target] = { id: caption.id, pieces };
  } else {
    captions.push({ id: caption.id, pieces });
    target = captions.length - 1;
    // Speech without sentence ends still settles: a long open sentence is closed here.
    const open = sentencesOf(captions).at(-1);
    const last = pieces.at(-1);
    if (open && !open.closed && last && !last.end) {
      const count = open.refs.reduce(
        (sum, ref) => sum + words(captions[ref.caption]!.pieces[ref.piece]!.text).length,
        0,
      );
      if (open.refs.length > TRACK_LIMITS.openPieces || count > TRACK_LIMITS.openWords) last.end = true;
    }
  }

  const groups = sentencesOf(captions);
  const touched = groups.filter((group) => group.refs.some((ref) => ref.caption === target));
  const pieceAt = (ref: PieceRef) => captions[ref.caption]!.pieces[ref.piece]!;
  const firstTouched = touched[0] ? groups.indexOf(touched[0]) : -1;
  const previous = firstTouched > 0 ? groups[firstTouched - 1] : undefined;
  const context = previous?.refs
    .map((ref) => pieceAt(ref).text)
    .join(' ')
    .slice(-TRACK_LIMITS.context);
  const published = captions.map(shareOf);

  const translations = await translateProtected(
    translate,
    touched.map((group) => group.refs.map((ref) => pieceAt(ref).text).join(' ')),
    keep,
    context,
  );

  touched.forEach((group, index) => {
    const translation = words(translations[index]!);
    const refs = group.refs;
    if (!group.closed && !correction) {
      // The open sentence: earlier pieces keep what they show; this caption's piece shows the rest.
      const earlier = refs.filter((ref) => ref.caption !== target);
      const shown = earlier.flatMap((ref) => words(pieceAt(ref).share));
      const own = refs.filter((ref) => ref.caption === target);
      const count = (list: PieceRef[]) => list.reduce((sum, ref) => sum + words(pieceAt(ref).text).length, 0);
      const rest = unshownWords(translation, shown, count(earlier) / Math.max(1, count(refs)));
      own.forEach((ref, at) => {
        pieceAt(ref).share = at === own.length - 1 ? rest.join(' ') : '';
      });
      return;
    }
    const anchors = refs.map((ref) => (ref.caption === target ? undefined : words(pieceAt(ref).share)));
    const sourceWords = refs.map((ref) => words(pieceAt(ref).text).length);
    splitShares(translation, anchors, sourceWords).forEach((share, at) => {
      pieceAt(refs[at]!).share = share.join(' ');
    });
  });

  const publications: Publication[] = [];
  captions.forEach((entry, index) => {
    if (index === target) return;
    const text = shareOf(entry);
    if (text !== published[index]) publications.push({ id: entry.id, text, correction: true });
  });
  publications.push({ id: caption.id, text: shareOf(captions[target]!), correction });

  // Forget the oldest captions beyond the limit, never the open sentence's.
  const openGroup = sentencesOf(captions).find((group) => !group.closed);
  const firstOpen = openGroup ? openGroup.refs[0]!.caption : captions.length;
  const drop = Math.max(0, Math.min(firstOpen, captions.length - TRACK_LIMITS.captions));
  const kept = captions.slice(drop);
  const forgotten = remember(
    state.forgotten,
    captions.slice(0, drop).map((entry) => entry.id),
  );
  return { state: { v: 1, captions: kept, forgotten }, publications };
}

/**
 * A whole text translated in one call with the same vocabulary protection as the track: the
 * reference the live text is measured against (tests, `pnpm bench translation`).
 */
export async function translateText(
  text: string,
  translate: TranslateTexts,
  options: { keep: readonly string[] },
): Promise<string> {
  const [translated] = await translateProtected(translate, [text], options.keep);
  return translated ?? '';
}
