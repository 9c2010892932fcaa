import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { chromiumAndWebmail, openAsPage, SCREENSHOTS, signedInPage } from '../support/browser.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';
import { WebmailClient } from '../support/webmail-client.ts';

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail reply-all, forward, mark and flag in Chromium, ${setting.name}`, function () {
    this.timeout(120_000);
    const stand = chromiumAndWebmail((context) => setting.start(context));

    /** Alice writes to Bob, copying Carol; Bob opens it in a page `width` px wide. */
    async function bobReads(width: number): Promise<{ page: Page; alice: string; carol: string }> {
      const [alice, bob, carol] = [await stand.server.account('alice'), await stand.server.account('bob'), await stand.server.account('carol')];
      const client = new WebmailClient(stand.server.baseUrl);
      await client.login(alice.username, alice.password);
      const form = {
        _id: await client.compose(),
        _token: client.requestToken,
        _to: `${bob.username}@localhost`,
        _cc: `${carol.username}@localhost`,
        _subject: 'Agenda',
        _body: 'first item',
      };
      assert.match((await client.post('/webmail/?_task=mail&_action=send&_unlock=loading1&_framed=1', form)).text, /Message sent successfully/);
      const page = await signedInPage(stand, bob, { width });
      await openAsPage(page.locator('#messagelist tbody tr td.subject a'));
      await page.waitForSelector('#mark-unread-button:not([hidden])');
      return { page, alice: `${alice.username}@localhost`, carol: `${carol.username}@localhost` };
    }

    for (const width of [380, 1280])
      it(`shows the action buttons at ${width} px without sideways scrolling, axe clean`, async () => {
        const { page } = await bobReads(width);
        await page.screenshot({ path: join(SCREENSHOTS, `mail-actions-message-${width}.png`), fullPage: true });
        for (const name of ['Reply', 'Reply all', 'Forward', 'Forward as attachment', 'Mark as unread', 'Flag'])
          assert.ok(await page.getByRole(name.startsWith('Re') || name.startsWith('Forward') ? 'link' : 'button', { name, exact: true }).isVisible(), name);
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
        const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
        assert.deepEqual(
          results.violations.map((violation) => `${violation.id}: ${violation.help}`),
          [],
        );
      });

    it('marks unread and flags from the message; the list shows both; reply-all and forward fill the form', async () => {
      const { page, alice, carol } = await bobReads(1280);
      await page.click('#mark-unread-button');
      await page.waitForSelector('#mark-unread-button:text-is("Mark as read")');
      await page.click('#flag-button');
      await page.waitForSelector('#flag-button:text-is("Unflag")');
      await page.goto(page.url().replace(/_action=show.*/, ''));
      const row = page.locator('#messagelist tbody tr').first();
      assert.deepEqual((await row.getAttribute('class'))!.split(' ').sort(), ['flagged', 'unread']);
      assert.match(await row.innerText(), /⚑/);
      await page.screenshot({ path: join(SCREENSHOTS, 'mail-actions-list-flagged-1280.png') });
      await openAsPage(page.locator('#messagelist tbody tr td.subject a'));
      await page.click('#reply-all-button');
      assert.equal(await page.inputValue('#_to'), alice);
      assert.equal(await page.inputValue('#_cc'), carol);
      assert.equal(await page.inputValue('#_subject'), 'Re: Agenda');
      await page.goBack();
      await page.click('#forward-button');
      assert.equal(await page.inputValue('#_subject'), 'Fwd: Agenda');
      assert.match(await page.inputValue('#_body'), /-------- Original Message --------\nSubject: Agenda\n[\s\S]*\n\nfirst item/);
      await page.goBack();
      await page.click('#forward-attachment-button');
      assert.equal(await page.inputValue('#_subject'), 'Fwd: Agenda');
      assert.equal(await page.inputValue('#_body'), '');
      assert.equal(await page.innerText('#forwarded-attachment'), 'Agenda.eml');
      await page.screenshot({ path: join(SCREENSHOTS, 'mail-actions-forward-attachment-1280.png') });
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
      assert.deepEqual(
        results.violations.map((violation) => `${violation.id}: ${violation.help}`),
        [],
      );
    });
  });
