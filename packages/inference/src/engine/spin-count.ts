import type { Logger } from '@live-captions/runtime';
import { setSpinCount } from '@live-captions/whisper';

/**
 * CAPTION_SPIN_COUNT, applied before the model loads the addon (libgomp reads it once, then);
 * one warning when it cannot be (the addon already loaded, or the operator's own GOMP_SPINCOUNT
 * or OMP_WAIT_POLICY set, which wins).
 */
export function applySpinCount(spinCount: number | undefined, logger: Logger | undefined): void {
  if (spinCount === undefined) return;
  const spin = setSpinCount(spinCount);
  if (spin.spinCount === spinCount) return;
  logger?.warn(
    { spinCount, inForce: spin },
    'CAPTION_SPIN_COUNT not applied: the whisper addon was already loaded, or GOMP_SPINCOUNT / OMP_WAIT_POLICY is set',
  );
}
