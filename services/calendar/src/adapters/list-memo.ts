/*
 * What this process learned of event lists, valid for one data generation, as WordPress keeps
 * query results under its `last_changed` salt. PostgreSQL holds the generation (cal_generation,
 * migration 0004): every statement that writes a table an event list reads replaces it, in the
 * writer's transaction. The list statement reads it in the same snapshot as the data and uses
 * what the process passes only when the generations match, so nothing memoized is ever served
 * for data that changed, whichever process or tool changed it.
 */

/**
 * A page of a list: its conditions with their values (`count`: its total), the same with its
 * date bounds left out, limit and offset (`shape`), and the conditions with their values, limit
 * and offset (`page`). The ids a shape last had are only a hint of which events to skip: the
 * default window moves every second, its events rarely. The ids a page had are its ids as long
 * as the generation is the same: the same conditions on the same data select the same rows.
 */
export interface PageKey {
  count: string;
  shape: string;
  page: string;
}

/** What a list statement may skip when the data's generation is still `generation`. */
export interface KnownPage {
  generation: string | null;
  /** The total of the page's conditions; -1 when unknown. */
  total: number;
  /** Events of the page the caller has rendered under `generation`. */
  skip: number[];
  /**
   * The page's ids, when this page was read under `generation`, its total is known and all its
   * events are in `skip`: the statement then reads no page at all while the generation holds.
   */
  exact: number[] | null;
}

export const NOTHING_KNOWN: KnownPage = { generation: null, total: -1, skip: [], exact: null };

/** Totals and pages remembered, each; the least recently used goes first. */
const MAX_ENTRIES = 4096;

/** A Map bounded to MAX_ENTRIES, in recency order. */
class Recent<V> {
  private readonly entries = new Map<string, V>();
  get(key: string): V | undefined {
    const found = this.entries.get(key);
    if (found !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, found);
    }
    return found;
  }
  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
  }
}

export class ListMemo {
  /** The generation the last list statement read (null: none yet, or memoizing is off). */
  private latest: string | null = null;
  private readonly totals = new Recent<{ generation: string; total: number }>();
  private readonly pages = new Recent<{ generation: string; ids: number[] }>();
  private readonly exact = new Recent<{ generation: string; ids: number[] }>();

  constructor(private readonly enabled: boolean) {}

  /**
   * The newest generation seen, the total of `key`'s conditions, its shape's ids and, with the
   * total, the page's own ids under it.
   */
  known(key: PageKey): { generation: string | null; total: number; ids: number[]; exact: number[] | null } {
    if (!this.enabled || this.latest === null) return { generation: null, total: -1, ids: [], exact: null };
    const total = this.totals.get(key.count);
    const page = this.pages.get(key.shape);
    const exact = this.exact.get(key.page);
    const counted = total?.generation === this.latest;
    return {
      generation: this.latest,
      total: counted ? total.total : -1,
      ids: page?.generation === this.latest ? page.ids : [],
      exact: counted && exact?.generation === this.latest ? exact.ids : null,
    };
  }

  /** Records what a list statement answered at `generation`. */
  learn(key: PageKey, generation: string | null, total: number, ids: number[]): void {
    if (!this.enabled || generation === null) return;
    this.latest = generation;
    this.totals.set(key.count, { generation, total });
    this.pages.set(key.shape, { generation, ids });
    this.exact.set(key.page, { generation, ids });
  }
}
