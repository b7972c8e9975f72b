/**
 * A bounded map from what identifies a rendering to what it produced, least recently used out
 * first. The key must name everything the rendering depends on (for list events: the data's
 * generation, the viewer's scope, the origin and the id), so that an entry can never be stale.
 * `maxBytes` bounds keys (UTF-16 upper bound) and values' own `bytes` together; 0 disables.
 */
export function fragmentStore<V extends { bytes: number }>(maxBytes: number) {
  const entries = new Map<string, V>();
  let bytes = 0;
  const sizeOf = (key: string, value: V) => key.length * 2 + value.bytes + 64;
  return {
    get(key: string): V | undefined {
      const found = entries.get(key);
      if (found !== undefined) {
        // Map order is recency order: move the hit last.
        entries.delete(key);
        entries.set(key, found);
      }
      return found;
    },
    set(key: string, value: V): void {
      const size = sizeOf(key, value);
      if (size > maxBytes) return;
      const old = entries.get(key);
      if (old !== undefined) {
        entries.delete(key);
        bytes -= sizeOf(key, old);
      }
      for (const [oldest, entry] of entries) {
        if (bytes + size <= maxBytes) break;
        entries.delete(oldest);
        bytes -= sizeOf(oldest, entry);
      }
      entries.set(key, value);
      bytes += size;
    },
    stats: () => ({ entries: entries.size, bytes }),
  };
}
