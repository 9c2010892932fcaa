import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { chromiumAndWebmail, SCREENSHOTS, signedInPage } from '../support/browser.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail selecting several messages in Chromium, ${setting.name}`, function () {
    this.timeout(120_000);
    const stand = chromiumAndWebmail((context) => setting.start(context));

    for (const width of [380, 1280])
      it(`ticks two of three messages at ${width} px and moves them to Trash, then one back; axe clean, no sideways scrolling`, async () => {
        const [alice, bob] = [await stand.server.account('alice'), await stand.server.account('bob')];
        const client = new WebmailClient(stand.server.baseUrl);
        await client.login(alice.username, alice.password);
        for (const subject of ['first', 'second', 'third']) {
          const form = { _id: await client.compose(), _token: client.requestToken, _to: `${bob.username}@localhost`, _cc: '', _subject: subject, _body: 'x' };
          await client.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', form);
        }
        const page = await signedInPage(stand, bob, { width });
        await page.getByRole('checkbox', { name: 'Select: first' }).check();
        await page.getByRole('checkbox', { name: 'Select: third' }).check();
        await page.screenshot({ path: join(SCREENSHOTS, `selection-list-${width}.png`), fullPage: true });
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
        const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
        assert.deepEqual(
          results.violations.map((violation) => `${violation.id}: ${violation.help}`),
          [],
        );
        await page.getByRole('button', { name: 'Move selected to Trash' }).click();
        await page.waitForURL(/_deleted=1$/);
        assert.deepEqual(await page.locator('#messagelist tbody td.subject a').allInnerTexts(), ['second']);
        await page.getByRole('link', { name: 'Trash' }).click();
        await page.waitForSelector('h1:text-is("Trash")');
        assert.deepEqual(await page.locator('#messagelist tbody td.subject a').allInnerTexts(), ['third', 'first']);
        await page.getByRole('checkbox', { name: 'Select: first' }).check();
        await page.getByLabel('Move selected to').selectOption({ label: 'Inbox' });
        await page.getByRole('button', { name: 'Move', exact: true }).click();
        await page.waitForURL(/_moved=1$/);
        assert.deepEqual(await page.locator('#messagelist tbody td.subject a').allInnerTexts(), ['third']);
      });
  });
