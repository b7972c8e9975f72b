/**
 * chrF (Popović 2015) as sacreBLEU 2.x computes it by default: character n-grams of orders 1-6
 * with whitespace removed, no word n-grams, beta = 2, precision and recall averaged over the
 * orders both sides have (sacreBLEU's "effective order", eps_smoothing off). Returned as a
 * fraction (sacreBLEU's score / 100): 1 for identical texts.
 */

export interface ChrFOptions {
  /** Weight of recall over precision (2: recall counts twice as much). */
  beta?: number;
  charOrder?: number;
}

function ngrams(chars: string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= chars.length; i += 1) {
    const gram = chars.slice(i, i + n).join('');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** [hypothesis n-grams, reference n-grams, matches] per order, summed over the segment pairs. */
function statistics(hypotheses: string[], references: string[], order: number): number[] {
  const stats = new Array<number>(order * 3).fill(0);
  hypotheses.forEach((hypothesis, index) => {
    // Code points, as Python's str; whitespace removed as `''.join(line.split())`.
    const hyp = Array.from(hypothesis.replace(/\s+/gu, ''));
    const ref = Array.from((references[index] ?? '').replace(/\s+/gu, ''));
    for (let n = 1; n <= order; n += 1) {
      const h = ngrams(hyp, n);
      const r = ngrams(ref, n);
      let hypCount = 0;
      let matches = 0;
      for (const [gram, count] of h) {
        hypCount += count;
        matches += Math.min(count, r.get(gram) ?? 0);
      }
      let refCount = 0;
      for (const count of r.values()) refCount += count;
      const at = (n - 1) * 3;
      stats[at]! += r.size > 0 ? hypCount : 0;
      stats[at + 1]! += refCount;
      stats[at + 2]! += matches;
    }
  });
  return stats;
}

/**
 * chrF of `hypothesis` against `reference`; with arrays, the corpus score of the pairs (counts
 * summed over all pairs before the F-score, as sacreBLEU's corpus_chrf).
 */
export function chrF(
  hypothesis: string | string[],
  reference: string | string[],
  options: ChrFOptions = {},
): number {
  const beta = options.beta ?? 2;
  const order = options.charOrder ?? 6;
  const hyps = Array.isArray(hypothesis) ? hypothesis : [hypothesis];
  const refs = Array.isArray(reference) ? reference : [reference];
  if (hyps.length !== refs.length) throw new Error('chrF: as many hypotheses as references');
  const stats = statistics(hyps, refs, order);
  const factor = beta ** 2;
  let precision = 0;
  let recall = 0;
  let effective = 0;
  for (let n = 0; n < order; n += 1) {
    const [hypCount, refCount, matches] = stats.slice(n * 3, n * 3 + 3) as [number, number, number];
    if (hypCount > 0 && refCount > 0) {
      precision += matches / hypCount;
      recall += matches / refCount;
      effective += 1;
    }
  }
  if (effective === 0) return 0;
  precision /= effective;
  recall /= effective;
  if (precision + recall === 0) return 0;
  return ((1 + factor) * precision * recall) / (factor * precision + recall);
}
