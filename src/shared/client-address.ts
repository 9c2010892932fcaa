import type { Context } from 'koa';

/** The client's address as logs and fail2ban should see it (IPv4 without the `::ffff:` mapping); TRUST_PROXY decides ctx.ip. */
export function clientAddress(ctx: Context): string {
  return (ctx.ip || 'unknown').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}
