/**
 * A least-recently-used map of at most `max` entries, each dropped `ttlMs` after it was stored (never, when
 * `ttlMs` is Infinity). A Map keeps insertion order, so re-inserting on every hit keeps the coldest entry first.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly max: number,
    private readonly ttlMs = Infinity,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Removes every entry whose value matches; a scan, fine for the few thousand entries this holds. */
  deleteWhere(matches: (value: V, key: string) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value, key)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** The live entries, coldest first. */
  *[Symbol.iterator](): IterableIterator<[string, V]> {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt > now) yield [key, entry.value];
  }
}
