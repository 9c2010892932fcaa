import { backOffMs } from './async-retry.ts';

/** Both Redis clients (announcements, rate-limit counters) reconnect so, for ever: 50 ms doubling to 2 s. */
export const redisReconnectStrategy = (retries: number): number => backOffMs({ firstMs: 50, maxMs: 2000 }, retries);
