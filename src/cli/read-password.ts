import { AccountError } from '../accounts/account-store.ts';
import { checkPassword } from '../accounts/passwords.ts';

/**
 * Reads a password from standard input, so it never shows in `ps` or shell history. One trailing
 * newline (as `echo` or a heredoc adds) is not part of the password; everything else is.
 */
export async function readPasswordFromStdin(input: NodeJS.ReadableStream = process.stdin): Promise<string> {
  if ((input as { isTTY?: boolean }).isTTY) process.stderr.write('password (end with Ctrl-D): ');
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  try {
    checkPassword(password);
  } catch (error) {
    if (error instanceof AccountError) throw new AccountError(`${error.message} (it is read from standard input)`);
    throw error;
  }
  return password;
}
