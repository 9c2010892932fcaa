import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { startWebmailServer, type WebmailServer } from './webmail-server.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's chromium, headless, with nothing reaching out to the network on its own. */
export async function launchChromium(): Promise<Browser | string> {
  if (!existsSync(CHROMIUM)) return `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  try {
    return await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  } catch (error) {
    return `Chromium at ${CHROMIUM} did not start: ${(error as Error).message.split('\n')[0]}`;
  }
}

/** Chromium for a `before` hook, or the hook's suite skipped with the printed reason. */
export async function chromiumOrSkip(context: Mocha.Context): Promise<Browser> {
  const launched = await launchChromium();
  if (typeof launched === 'string') {
    console.log(`      skipped: ${launched}`);
    context.skip();
  }
  return launched;
}

/** Where the browser tests save the screenshots a person looks at. */
export const SCREENSHOTS = process.env.WEBMAIL_SCREENSHOTS ?? join('tmp', 'screenshots');

/** The Chromium and the webmail server a browser suite shares; set once its `before` hook has run. */
export type ChromiumStand = { readonly browser: Browser; readonly server: WebmailServer };

/**
 * Chromium and a webmail server for the calling `describe`: started in its `before` hook (Chromium first,
 * so a missing one skips the suite, saying why, before a server starts), closed in its `after`.
 */
export function chromiumAndWebmail(start: (context: Mocha.Context) => Promise<WebmailServer> = () => startWebmailServer()): ChromiumStand {
  const stand = {} as { browser: Browser; server: WebmailServer };
  before(async function () {
    stand.browser = await chromiumOrSkip(this);
    stand.server = await start(this);
    mkdirSync(SCREENSHOTS, { recursive: true });
  });
  after(async () => {
    await stand.browser?.close();
    await stand.server?.close();
  });
  return stand;
}

export type PageOptions = { readonly width: number; readonly timezoneId?: string; readonly locale?: string };

/** A fresh context `width` px wide, signed in through the login form; a script error on the page fails the test. */
export async function signedInPage(stand: ChromiumStand, user: { readonly username: string; readonly password: string }, options: PageOptions): Promise<Page> {
  const { width, ...context } = options;
  const page = await (await stand.browser.newContext({ viewport: { width, height: 800 }, ...context })).newPage();
  page.on('pageerror', (error) => assert.fail(error.message));
  await page.goto(`${stand.server.baseUrl}/webmail/`);
  await page.fill('#rcmloginuser', user.username);
  await page.fill('#rcmloginpwd', user.password);
  await page.click('#rcmloginsubmit');
  return page;
}

/**
 * Follows a list's subject link as the message's own page, as a phone or a browser without script does.
 * Wider than 1200 px a click opens the message in the preview pane instead (preview-pane-browser.spec.ts).
 */
export async function openAsPage(link: Locator): Promise<void> {
  const page = link.page();
  await page.goto(new URL((await link.getAttribute('href'))!, page.url()).href);
}
