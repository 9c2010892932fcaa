/**
 * Whether `error` is of the class `type`, told by its name rather than by `instanceof`: an adapter that is
 * loaded on demand may throw from a second instance of the class's module, whose class is then another
 * one (the case src/shared/store-unavailable.ts cites). The class must name its instances as itself.
 */
export function isErrorNamed<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): error is T {
  return error instanceof Error && error.name === type.name;
}
