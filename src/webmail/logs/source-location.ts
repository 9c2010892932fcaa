import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export type SourceLocation = { readonly file: string; readonly line: number };

const PROJECT_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const FRAME = /\(?((?:file:\/\/)?\/[^():]+):(\d+):\d+\)?$/;

/**
 * The file (relative to the project root) and line of a function `depth` calls above the one asking,
 * read from a fresh stack trace. tsx maps stack lines back to the TypeScript source, so the line is
 * the one a reader finds in the editor, and it stays right when the code around it moves.
 */
export function callerLocation(depth: number): SourceLocation {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  // frames[0] is this function, frames[1] the one asking, frames[1 + depth] its caller at that depth
  const match = FRAME.exec(frames[1 + depth]?.trim() ?? '');
  if (!match) return { file: 'unknown', line: 0 };
  const path = match[1]!.startsWith('file://') ? fileURLToPath(match[1]!) : match[1]!;
  return { file: relative(PROJECT_ROOT, path).split('\\').join('/'), line: Number(match[2]) };
}
