import simpleFolding from '@unicode/unicode-15.0.0/Case_Folding/C/code-points.mjs';
import fullFolding from '@unicode/unicode-15.0.0/Case_Folding/F/code-points.mjs';

/**
 * Case folding as Ruby's regex engine (Onigmo) applies it under `/i`: the common (C) and full (F)
 * mappings of Unicode's CaseFolding.txt, so `ß` is folded to `ss` and `ﬁ` to `fi`, while the Turkic (T)
 * mappings stay unused. Unicode 15.0.0 is the version of Ruby 3.3 and 3.4, which Mastodon runs on.
 * Two texts match case-insensitively when their folded code point sequences are equal.
 */

/** The single code point a code point folds to (itself when CaseFolding.txt has no C mapping). */
export function foldSingle(codePoint: number): number {
  if (codePoint < 0x80) return codePoint >= 0x41 && codePoint <= 0x5a ? codePoint + 0x20 : codePoint;
  return simpleFolding.get(codePoint) ?? codePoint;
}

/** The full folding of a code point with an F mapping (`ß` -> `ss`), else undefined. */
export function foldMultiple(codePoint: number): readonly number[] | undefined {
  return fullFolding.get(codePoint);
}

/** How many folded code points a code point becomes: 1 except for the few with a full (F) mapping. */
export function foldedLength(codePoint: number): number {
  return codePoint < 0x80 ? 1 : (fullFolding.get(codePoint)?.length ?? 1);
}

/** The folded code points of a whole string. */
export function foldString(text: string): number[] {
  const folded: number[] = [];
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    const multiple = foldMultiple(codePoint);
    if (multiple) folded.push(...multiple);
    else folded.push(foldSingle(codePoint));
  }
  return folded;
}

const unfoldings = new Map<number, number[]>();
for (const [from, to] of simpleFolding) {
  const list = unfoldings.get(to);
  if (list) list.push(from);
  else unfoldings.set(to, [from]);
}

/** Every code point whose folding is exactly `folded` (itself included), e.g. k -> [k, K, U+212A KELVIN SIGN]. */
export function codePointsFoldingTo(folded: number): readonly number[] {
  const others = unfoldings.get(folded) ?? [];
  return foldSingle(folded) === folded && !fullFolding.has(folded) ? [folded, ...others] : others;
}

const multipleByPart = new Map<number, number[]>();
for (const [from, to] of fullFolding) {
  for (const part of new Set(to)) {
    const list = multipleByPart.get(part);
    if (list) list.push(from);
    else multipleByPart.set(part, [from]);
  }
}

/** The code points with a full folding that contains `folded` (ß for s). */
export function multipleFoldingsWith(folded: number): readonly number[] {
  return multipleByPart.get(folded) ?? [];
}
