import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumOrSkip } from '../support/browser.ts';
import { CALLBACK, registerApp } from '../support/oauth-flow.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { TestServer } from '../support/test-server.ts';

/** Where the 380 px screenshot goes; SCREENSHOT_DIR keeps it for a person to look at. */
const shots = process.env.SCREENSHOT_DIR ?? scratchDir('shots-');

describe('OAuth consent page in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  before(async function () {
    browser = await chromiumOrSkip(this);
    server = await TestServer.start();
  });
  after(async () => {
    await browser?.close();
    await server?.close();
  });

  const authorizeUrl = async () => {
    const app = await registerApp(server, 'read write');
    return `${server.url}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: CALLBACK, scope: 'read write' })}`;
  };

  for (const width of [380, 1280]) {
    it(`passes axe at ${width} px, with a wrong password shown too, and fits without sideways scrolling`, async () => {
      // axe opens its own page in the context, which browser.newPage() does not allow.
      const context = await browser.newContext({ viewport: { width, height: 800 } });
      const page = await context.newPage();
      try {
        await page.goto(await authorizeUrl());
        const clean = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(
          clean.violations.map((v) => v.id),
          [],
        );
        await page.getByLabel('Username').fill('nobody');
        await page.getByLabel('Password').fill('wrong');
        await page.getByRole('button', { name: 'Authorize' }).click();
        await page.getByRole('alert').waitFor();
        const withError = await new AxeBuilder({ page }).analyze();
        assert.deepEqual(
          withError.violations.map((v) => v.id),
          [],
        );
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.equal(overflow, 0);
        const box = await page.getByRole('button', { name: 'Authorize' }).boundingBox();
        assert.ok(box && box.x >= 0 && box.x + box.width <= width && box.height >= 44);
        await page.screenshot({ path: join(shots, `consent-${width}.png`), fullPage: true });
      } finally {
        await context.close();
      }
    });
  }
});
