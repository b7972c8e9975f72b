/// <reference lib="dom" />
/**
 * The capture page's access token field: a token typed is used as soon as it is entered, by
 * Enter, by leaving the field (Tab, a click elsewhere) or by "Fill in". An unauthorized `/health`
 * stops polling, so without this a token typed and left with Tab kept Start disabled (issue 43.2).
 */

/** Wires `field` to `fill`; returns the fill-in for the "Fill in" button. */
export function tokenEntered(field: HTMLInputElement, fill: () => void): () => void {
  // The token the last fill-in used: leaving the field after Enter does not fill in twice.
  let filledWith: string | undefined;
  const fillIn = () => {
    filledWith = field.value.trim();
    fill();
  };
  field.addEventListener('change', () => {
    if (field.value.trim() && field.value.trim() !== filledWith) fillIn();
  });
  // Enter does what the button does (it would otherwise submit the relay form, which reconnects
  // with the settings as they are and never checks the token).
  field.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || event.isComposing) return;
    event.preventDefault();
    fillIn();
  });
  return fillIn;
}
