/**
 * A bounded map from the exact text a rendering was computed from to what it produced, least
 * recently used out first. Keys are the input itself (not an id and a version), so an entry can
 * never be stale: any change of the input, a renamed venue or a term's new count included, is
 * another key. `maxBytes` bounds keys and values together (UTF-16 upper bound); 0 disables.
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
