/**
 * A counter of the editor's changes that its tab keeps (the review, what went out, the output
 * room's acknowledgements): the page saves its journal when it moved (editor-keep.ts). Its own
 * module, so that the parts that change things need not know the part that keeps them.
 */
let count = 0;

export function changed(): void {
  count += 1;
}

export function changes(): number {
  return count;
}
