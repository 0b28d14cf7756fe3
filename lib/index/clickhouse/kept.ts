// What a reader keeps between requests: a value per key with the version of the run it was read at (the poll moves a
// run's version when it sees newer rows), so that a kept value is used only while its run has not changed.

export class Kept<T> {
  private readonly entries = new Map<string, { v: number; value: T }>();

  /** `cap`: the most keys kept at once; the one kept longest goes first. */
  constructor(private readonly cap = Infinity) {}

  /** The value kept for `key` at version `v`, if any. */
  get(key: string, v: number): T | undefined {
    const e = this.entries.get(key);
    return e && e.v === v ? e.value : undefined;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, v: number, value: T): void {
    this.entries.delete(key);
    if (this.entries.size >= this.cap) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { v, value });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Forgets `key` if `value` is still what it keeps (a failed read, while a newer one may have replaced it). */
  forget(key: string, value: T): void {
    if (this.entries.get(key)?.value === value) this.entries.delete(key);
  }
}
