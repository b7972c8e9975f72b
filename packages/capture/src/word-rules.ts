/**
 * The operator's word rules (pure), applied in one place to every caption before it is shown,
 * kept and published: a replacement list (whole words or phrases, matched whatever their case;
 * the replacement follows the case of what it replaces: `Capitalised`, `UPPER`, or as written)
 * and an optional profanity mask (first letter kept, the rest starred).
 */

export interface Replacement {
  from: string;
  to: string;
}

export interface WordRules {
  replacements: readonly Replacement[];
  maskProfanity: boolean;
}

/** A short list of English swear words; the mask is a courtesy, not a content filter. */
const PROFANITY = [
  'fuck',
  'fucking',
  'fucked',
  'shit',
  'shitty',
  'bullshit',
  'asshole',
  'bitch',
  'bastard',
  'cunt',
  'dick',
  'piss',
  'wanker',
  'bollocks',
];

const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const wholeWord = (phrase: string) =>
  new RegExp(`(?<![\\p{L}\\p{N}_])${literal(phrase)}(?![\\p{L}\\p{N}_])`, 'giu');

/** `from => to` (or `from = to`) per line; blank lines and lines without `=` are left out. */
export function parseReplacements(text: string): Replacement[] {
  return text
    .split('\n')
    .map((line) => /^(.+?)\s*=>?\s*(.*)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null && match[1]!.trim() !== '')
    .map((match) => ({ from: match[1]!.trim(), to: match[2]!.trim() }));
}

function followCase(found: string, to: string): string {
  if (found.length > 1 && found === found.toUpperCase() && found !== found.toLowerCase())
    return to.toUpperCase();
  const first = found[0] ?? '';
  if (first !== first.toLowerCase() && to) return to[0]!.toUpperCase() + to.slice(1);
  return to;
}

export function applyWordRules(text: string, rules: WordRules): string {
  let out = text;
  for (const { from, to } of rules.replacements)
    out = out.replace(wholeWord(from), (found) => followCase(found, to));
  if (rules.maskProfanity)
    for (const word of PROFANITY)
      out = out.replace(wholeWord(word), (found) => found[0] + '*'.repeat(found.length - 1));
  // A replacement by nothing leaves no double blanks behind.
  return out.replace(/[ \t]{2,}/g, ' ').trim();
}
