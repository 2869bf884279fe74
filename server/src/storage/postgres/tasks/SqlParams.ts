/** Collects positional parameters: `add(v)` answers its `$n` placeholder. */
export class SqlParams {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
  list(vs: readonly unknown[]): string {
    return vs.map((v) => this.add(v)).join(', ');
  }
}
