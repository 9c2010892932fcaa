import { resolve } from 'node:path';

/** A setting that cannot be used; its message names the variable, what it must be and what it was. */
export class BadSetting extends Error {
  override readonly name = 'BadSetting';

  constructor(
    readonly variable: string,
    expected: string,
    readonly value: string,
  ) {
    super(`${variable} must be ${expected}, got ${value}`);
  }
}

/**
 * The one way every process reads its settings from the environment: values are trimmed, an empty value
 * counts as unset (the default applies), and a value that does not fit throws a BadSetting, which the
 * process runner turns into one `bad_config` fatal line and exit code 1.
 */
export class Settings {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** The trimmed value, or undefined when unset or empty. */
  optional(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  }

  text(name: string, fallback: string): string {
    return this.optional(name) ?? fallback;
  }

  /** An absolute path; relative ones are taken from the working directory. */
  path(name: string, fallback: string): string {
    return resolve(this.text(name, fallback));
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!/^[+-]?\d+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new BadSetting(name, `an integer from ${min} to ${max}`, raw);
    }
    return value;
  }

  port(name: string, fallback: number): number {
    return this.integer(name, fallback, 0, 65535);
  }

  /** A finite number above zero (fractions allowed). */
  positive(name: string, fallback: number): number {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value <= 0) throw new BadSetting(name, 'a positive number', raw);
    return value;
  }

  /** on/off, true/false, yes/no or 1/0, in any case. */
  switch(name: string, fallback: boolean): boolean {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = raw.toLowerCase();
    if (['on', 'true', 'yes', '1'].includes(value)) return true;
    if (['off', 'false', 'no', '0'].includes(value)) return false;
    throw new BadSetting(name, 'on or off', raw);
  }

  /** One of `allowed` (lower-case words), in any case: `LOG_LEVEL=DEBUG` as `TRUST_PROXY=ON`. */
  oneOf<const T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.optional(name);
    if (raw === undefined) return fallback;
    const value = raw.toLowerCase();
    if (!(allowed as readonly string[]).includes(value)) throw new BadSetting(name, `one of ${allowed.join(', ')}`, raw);
    return value as T;
  }

  /** A value that must match `pattern` (described by `expected` in the error). */
  matching(name: string, fallback: string, pattern: RegExp, expected: string): string {
    const value = this.text(name, fallback);
    if (!pattern.test(value)) throw new BadSetting(name, expected, value);
    return value;
  }
}
