import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { chromiumAndWebmail, SCREENSHOTS, signedInPage } from '../support/browser.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail search in Chromium, ${setting.name}`, function () {
    this.timeout(120_000);
    const stand = chromiumAndWebmail((context) => setting.start(context));

    for (const width of [380, 1280])
      it(`searches from the list's form at ${width} px, by body too, then resets; no sideways scrolling, axe clean`, async () => {
        const [alice, bob] = [await stand.server.account('alice'), await stand.server.account('bob')];
        const client = new WebmailClient(stand.server.baseUrl);
        await client.login(alice.username, alice.password);
        for (const [subject, body] of [
          ['Holiday photos from the long weekend in the mountains', 'see the album'],
          ['Minutes', 'the holiday rota is attached'],
          ['Invoice', 'due friday'],
        ]) {
          const form = {
            _id: await client.compose(),
            _token: client.requestToken,
            _to: `${bob.username}@localhost`,
            _cc: '',
            _subject: subject!,
            _body: body!,
          };
          await client.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', form);
        }
        const page = await signedInPage(stand, bob, { width });
        await page.getByRole('searchbox', { name: 'Search in Inbox' }).fill('holiday');
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.waitForSelector('h1:text-is("Search results in Inbox")');
        assert.deepEqual(await page.locator('#messagelist tbody td.subject a').allInnerTexts(), ['Holiday photos from the long weekend in the mountains']);
        await page.getByRole('checkbox', { name: 'Body' }).check();
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.waitForSelector('#messagelist tbody tr:nth-child(2)');
        assert.deepEqual(await page.locator('#messagelist tbody td.subject a').allInnerTexts(), [
          'Minutes',
          'Holiday photos from the long weekend in the mountains',
        ]);
        await page.screenshot({ path: join(SCREENSHOTS, `search-results-${width}.png`), fullPage: true });
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
        const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
        assert.deepEqual(
          results.violations.map((violation) => `${violation.id}: ${violation.help}`),
          [],
        );
        await page.click('#reset-search');
        await page.waitForSelector('h1:text-is("Inbox")');
        assert.equal(await page.locator('#messagelist tbody tr').count(), 3);
      });
  });
