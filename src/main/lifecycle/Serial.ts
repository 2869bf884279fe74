/**
 * Runs async work one piece at a time, in call order: a read-change-write of a shared file or
 * record done through it never interleaves with another (the second reads what the first wrote).
 * A piece that fails does not stop the ones after it.
 */
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.tail.then(work, work);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
