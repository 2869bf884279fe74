/** The label value every value beyond the limit shares. */
export const OTHER_LABEL = 'other';

/**
 * Keeps a label's cardinality bounded: the first `limit` distinct values seen keep their own
 * label value, every later one reads `other`. (A ranking that moved values in and out of the set
 * would split one series over several names and break rates.)
 */
export class BoundedLabel {
  private readonly kept = new Set<string>();

  constructor(private readonly limit: number) {}

  of(value: string): string {
    if (this.kept.has(value)) return value;
    if (this.kept.size >= this.limit) return OTHER_LABEL;
    this.kept.add(value);
    return value;
  }
}
