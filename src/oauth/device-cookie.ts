import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { signInName } from './sign-in-throttle.ts';

/** OWASP's "device cookie": this browser has signed this name in before. */
export const DEVICE_COOKIE = 'oauth_device';
const VERSION = 'v1';
const MAX_AGE_MS = 365 * 24 * 60 * 60 * 1000;
/** Larger values are not ours: refused before any decoding or hashing work. */
const MAX_COOKIE_LENGTH = 4096;
const NONCE = /^[A-Za-z0-9_-]{22}$/;

const macOf = (key: Buffer, payload: string): Buffer => createHmac('sha256', key).update(payload).digest();

/** `v1.<name, base64url>.<nonce>.<HMAC-SHA256 of the rest, base64url>`. */
export function mintDeviceCookie(key: Buffer, username: string, nonce = randomBytes(16).toString('base64url')): string {
  const payload = `${VERSION}.${Buffer.from(signInName(username)).toString('base64url')}.${nonce}`;
  return `${payload}.${macOf(key, payload).toString('base64url')}`;
}

/** The cookie's nonce when it is ours, untampered, and for this name (however spelt); null otherwise. */
export function deviceNonce(key: Buffer, cookie: string | undefined, username: string): string | null {
  if (!cookie || cookie.length > MAX_COOKIE_LENGTH) return null;
  const parts = cookie.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION || !NONCE.test(parts[2]!)) return null;
  const sent = Buffer.from(parts[3]!, 'base64url');
  const expected = macOf(key, parts.slice(0, 3).join('.'));
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) return null;
  const name = Buffer.from(parts[1]!, 'base64url').toString();
  return name !== '' && name === signInName(username) ? parts[2]! : null;
}

/**
 * Reads and sets device cookies with the deployment's key (OAuthStore.deviceCookieKey), fetched once per
 * process; a failed fetch is not kept, so the next request asks the store again.
 */
export class DeviceCookies {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly loadKey: () => Promise<Buffer>) {}

  private keyNow(): Promise<Buffer> {
    this.key ??= this.loadKey().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }

  /** The nonce of a valid device cookie for this name, or null. */
  async recognise(ctx: Context, username: string): Promise<string | null> {
    const cookie = ctx.cookies.get(DEVICE_COOKIE);
    if (!cookie) return null;
    return deviceNonce(await this.keyNow(), cookie, username);
  }

  /** After a sign-in: this browser's cookie for the name, keeping its nonce (and its budget) if it had one. */
  async issue(ctx: Context, username: string, nonce: string | null): Promise<void> {
    const value = mintDeviceCookie(await this.keyNow(), username, nonce ?? undefined);
    ctx.cookies.set(DEVICE_COOKIE, value, { httpOnly: true, sameSite: 'lax', path: '/oauth', secure: ctx.secure, maxAge: MAX_AGE_MS, overwrite: true });
  }
}
