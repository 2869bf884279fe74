/** A usage or input error of the CLI: printed without a stack, exit code 2. */
export class CliError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}
