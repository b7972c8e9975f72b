/** A caption as the cluster stores it: what every node needs to retain and fan it out. */
export interface StoredCaption {
  epoch: string;
  sequence: number;
  /** Milliseconds since the epoch, from the stream entry's id (Redis's clock). */
  at: number;
  /** `client:sequence` of the delivery that published it. */
  delivery: string;
  /** Caption fields as JSON (the publish's canonical body). */
  body: string;
}

/** A room as the cluster holds it: its epoch, the last sequence given out, what is retained. */
export interface RoomSnapshot {
  epoch: string;
  last: number;
  captions: StoredCaption[];
}

/**
 * Keys of one room. The `{room}` hash tag keeps a room's keys in one slot, so the scripts that
 * touch them together also run on a Redis Cluster.
 */
export function roomKeys(prefix: string, room: string) {
  const base = `${prefix}{${room}}`;
  return {
    epoch: `${base}:epoch`,
    sequence: `${base}:seq`,
    log: `${base}:log`,
    /** The sum of the history's caption bodies in bytes (its retention by bytes). */
    bytes: `${base}:bytes`,
    delivery: (key: string) => `${base}:d:${key}`,
  };
}

/** Parses one stream entry (`XRANGE`/`XREAD` shape) into a caption; undefined when it is not one of ours. */
export function parseEntry(id: string, fields: string[]): StoredCaption | undefined {
  const values: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) values[fields[i]!] = fields[i + 1]!;
  const sequence = Number(values.s);
  const at = Number(id.split('-', 1)[0]);
  if (!Number.isSafeInteger(sequence) || sequence < 1 || !values.e || values.b === undefined)
    return undefined;
  return { epoch: values.e, sequence, at, delivery: values.d ?? '', body: values.b };
}

/** Orders stream ids (`ms-seq`). */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
