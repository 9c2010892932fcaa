/** A refusal the CLI prints as `error: <message>` and ends with exit 1, without a stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';
}
