/**
 * The session's 16 kHz audio that may still be needed (the open utterance, the prefix padding,
 * or everything since the last manual commit), addressed by absolute sample position.
 */
export class SampleBuffer {
  private chunks: Float32Array[] = [];
  /** Absolute position of the first kept sample. */
  start = 0;
  /** Absolute position after the last sample: every sample ever appended. */
  end = 0;

  get length(): number {
    return this.end - this.start;
  }

  append(samples: Float32Array): void {
    if (samples.length === 0) return;
    this.chunks.push(samples);
    this.end += samples.length;
  }

  /** Samples [from, to), clamped to what is kept. */
  slice(from: number, to: number): Float32Array {
    const first = Math.max(from, this.start);
    const last = Math.min(to, this.end);
    const out = new Float32Array(Math.max(0, last - first));
    let at = this.start;
    for (const chunk of this.chunks) {
      const chunkEnd = at + chunk.length;
      if (chunkEnd > first && at < last) {
        const from = Math.max(first, at) - at;
        const to = Math.min(last, chunkEnd) - at;
        out.set(chunk.subarray(from, to), Math.max(first, at) - first);
      }
      at = chunkEnd;
      if (at >= last) break;
    }
    return out;
  }

  /** Forgets the samples before `position`. */
  dropBefore(position: number): void {
    const target = Math.min(position, this.end);
    while (this.chunks.length > 0 && this.start + this.chunks[0]!.length <= target) {
      this.start += this.chunks.shift()!.length;
    }
    if (this.chunks.length > 0 && target > this.start) {
      this.chunks[0] = this.chunks[0]!.subarray(target - this.start);
      this.start = target;
    }
    if (this.chunks.length === 0) this.start = this.end;
  }
}
