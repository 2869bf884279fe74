/** A filter this store cannot evaluate (a database opened read-only with a schema older than the argument index). */
export class StoreCapabilityError extends Error {
  readonly status = 400;
  constructor(message: string) {
    super(message);
    this.name = 'StoreCapabilityError';
  }
}
