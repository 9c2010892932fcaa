import { loadConfig } from '../../src/config.ts';
import { FanOutNotifier } from '../../src/notifications/fan-out-notifier.ts';
import type { Notifier } from '../../src/notifications/notifier.ts';
import { openStores, type Stores } from '../../src/composition-root.ts';
import { startService, type RunningService } from '../../src/service.ts';
import { silentLogger } from '../../src/shared/logger.ts';
import { InProcessBus } from './in-process-bus.ts';
import { scratchDir } from './scratch-dir.ts';

export interface TestAccount {
  readonly id: string;
  readonly username: string;
  readonly token: string;
}

export interface ApiResponse {
  readonly status: number;
  readonly type: string;
  readonly body: any;
  readonly headers: Headers;
}

export interface RequestOptions {
  readonly token?: string | null;
  readonly json?: unknown;
  readonly form?: string;
  readonly multipart?: FormData;
  readonly raw?: { readonly contentType: string; readonly body: string };
  readonly headers?: Record<string, string>;
}

let usernames = 0;

/** A real listening service on a fresh data directory, plus helpers to call it as a client would. */
/** The count deadline of the servers whose rate-limit clock a test pins (see start). */
const COUNTS_JUDGED_DEADLINE_MS = 2000;

export class TestServer {
  private constructor(readonly service: RunningService) {}

  /**
   * `notifier` replaces the one NATS_URL would choose: by default a bus that `listen()` hears. `adapt`
   * may wrap the opened stores (a test's faulty event store, say). `rateLimitClock` is the clock the
   * rate limits' windows are counted on (pinned-clock.ts), instead of Date.now; with it a count may take
   * up to 2 s to come back before a 503 (instead of 40 ms): those tests judge counts, and on a loaded
   * machine a count came back late (CI: request 300 of the per-token throttle saw 2 left, not 0).
   */
  static async start(
    env: Record<string, string> = {},
    notifier: Notifier = new InProcessBus(),
    adapt: (stores: Stores) => Stores = (s) => s,
    rateLimitClock?: () => number,
  ): Promise<TestServer> {
    // Rate limits are tested on their own (test/rate-limits): other tests make more requests than Mastodon allows.
    const all = { DATA_DIR: scratchDir(), PORT: '0', HOST: '127.0.0.1', RATE_LIMITS: 'off', ...env };
    const loaded = loadConfig(all);
    const config = rateLimitClock
      ? { ...loaded, rateLimits: { ...loaded.rateLimits, now: rateLimitClock, countDeadlineMs: COUNTS_JUDGED_DEADLINE_MS } }
      : loaded;
    const opened = await openStores({ ...config, natsUrl: undefined }, silentLogger);
    // Extra channels the settings ask for (REDIS_URL) stay; only the primary one is replaced.
    const stores = { ...opened, notifier: opened.notifier instanceof FanOutNotifier ? new FanOutNotifier(notifier, opened.notifier.extras) : notifier };
    return new TestServer(await startService({ config, logger: silentLogger, env: all, stores: adapt(stores) }));
  }

  get url(): string {
    return this.service.url;
  }

  async account(scopes: readonly string[] = ['read:filters', 'write:filters']): Promise<TestAccount> {
    usernames += 1;
    const username = `user${process.pid}_${usernames}`;
    const created = await this.service.stores.accounts.createAccount(username);
    return { id: created.id, username, token: await this.service.stores.accounts.createToken(created.id, scopes) };
  }

  async token(account: TestAccount, scopes: readonly string[]): Promise<string> {
    return this.service.stores.accounts.createToken(account.id, scopes);
  }

  /**
   * Resolves once every event in the log now has been projected and announced on every transport: the
   * announcer runs after the write has been answered, so a test that counts announcements waits here.
   */
  async announcementsSettled(): Promise<void> {
    const projector = this.service.projector;
    if (!projector) throw new Error('announcementsSettled() needs the in-process projector');
    let head: bigint | null = null;
    for (;;) {
      const page = await this.service.stores.events.readAll({ after: head, limit: 1000 });
      if (page.length === 0) break;
      head = page.at(-1)!.position;
    }
    if (head === null) return;
    await projector.waitFor(head, 10_000);
    await projector.announced(head);
  }

  /** Every `timeline.*` message published from now on. */
  listen(): string[] {
    const heard: string[] = [];
    const configured = this.service.stores.notifier;
    const notifier = configured instanceof FanOutNotifier ? configured.primary : configured;
    if (!(notifier instanceof InProcessBus)) throw new Error('listen() needs the in-process bus');
    notifier.subscribe((subject, payload) => heard.push(`${subject} ${payload}`));
    return heard;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined && options.token !== null) headers.authorization = `Bearer ${options.token}`;
    let body: string | FormData | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = options.form;
    } else if (options.multipart) {
      body = options.multipart;
    } else if (options.raw) {
      headers['content-type'] = options.raw.contentType;
      body = options.raw.body;
    }
    const response = await fetch(`${this.url}${path}`, { method, headers, body });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, type, headers: response.headers, body: type.startsWith('application/json') ? JSON.parse(text) : text };
  }

  async close(): Promise<void> {
    await this.service.close();
  }
}

export interface TwoAccounts {
  readonly server: TestServer;
  /** Fresh for every test. */
  readonly alice: TestAccount;
  /** Fresh for every test: the other account, whose data alice must never reach. */
  readonly bob: TestAccount;
}

/** Registers hooks: one server for the describe block, two fresh accounts for each test. */
export function serverWithTwoAccounts(): TwoAccounts {
  const fixture = {} as { server: TestServer; alice: TestAccount; bob: TestAccount };
  before(async () => {
    fixture.server = await TestServer.start();
  });
  after(() => fixture.server.close());
  beforeEach(async () => {
    fixture.alice = await fixture.server.account();
    fixture.bob = await fixture.server.account();
  });
  return fixture;
}
