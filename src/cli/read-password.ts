import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { AccountError } from '../accounts/account-store.ts';
import { checkNewPassword } from '../accounts/passwords.ts';
import { CliError } from './cli-error.ts';

function checked(password: string, from: string): string {
  try {
    checkNewPassword(password);
  } catch (error) {
    if (error instanceof AccountError) throw new AccountError(`${error.message} (${from})`);
    throw error;
  }
  return password;
}

/**
 * Reads a password piped to standard input, so it never shows in `ps` or shell history. One trailing
 * newline (as `echo` or a heredoc adds) is not part of the password; everything else is.
 */
export async function readPasswordFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return checked(
    Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, ''),
    'it is read from standard input',
  );
}

/** Nothing typed is echoed: readline draws the line here instead of on the terminal. */
const nowhere = () => new Writable({ write: (_chunk, _encoding, done) => done() });

/**
 * One line typed on the terminal without echo, ended by Enter. Raw mode (set by readline) is on before
 * the prompt shows, so nothing typed after the prompt reaches the terminal's own echo.
 */
export function promptHidden(prompt: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  const line = createInterface({ input, output: nowhere(), terminal: true });
  output.write(prompt);
  return new Promise((resolve, reject) => {
    let answered = false;
    line.once('line', (typed) => {
      answered = true;
      line.close();
      resolve(typed);
    });
    line.once('SIGINT', () => line.close());
    line.once('close', () => {
      output.write('\n');
      if (!answered) reject(new CliError('no password given'));
    });
  });
}

/** On a terminal: asks twice, without echo, and takes it only when both agree. */
export async function promptNewPassword(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  const password = checked(await promptHidden('password: ', input), 'nothing was changed');
  if ((await promptHidden('password again: ', input)) !== password) throw new CliError('the passwords differ; nothing was changed');
  return password;
}

/** A terminal gets a prompt without echo; a pipe or a file is read to its end (`--password-stdin`). */
export function readNewPassword(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  return input.isTTY ? promptNewPassword(input) : readPasswordFromStdin(input);
}
