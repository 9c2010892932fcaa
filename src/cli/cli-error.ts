/** A refusal the CLI prints as `error: <message>` and ends with `exitCode` (1 unless said), without a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}
