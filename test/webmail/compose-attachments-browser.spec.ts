import { AxeBuilder } from '@axe-core/playwright';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { UPLOAD_LIMITS } from '../../src/webmail/actions/upload-limits.ts';
import { chromiumAndWebmail, openAsPage, SCREENSHOTS, signedInPage } from '../support/browser.ts';
import { WEBMAIL_ADAPTERS } from '../support/imap-webmail-server.ts';

async function axeViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'best-practice']).analyze();
  return results.violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}

/** A long name with no spaces: it must wrap inside the list, not widen the page. */
const LONG_NAME = `Quartalsbericht_Übersicht_${'Zahlen'.repeat(12)}.pdf`;
const NON_ASCII = 'résumé 2026 – Zürich.pdf';
/** A name a careless list would turn into markup: it is the one removed again. */
const HOSTILE = '<img src=x onerror="window.owned=1">.txt';
const PDF = Buffer.from('%PDF-1.4\n% test file\n');
const names = (page: Page) => page.locator('#attachment-list li:not(.uploading) .attachment-name').allTextContents();
const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

for (const setting of WEBMAIL_ADAPTERS)
  describe(`webmail compose attachments, ${setting.name}, in Chromium`, function () {
    this.timeout(180_000);
    const stand = chromiumAndWebmail((context) => setting.start(context));
    const shot = (name: string, width: number) => join(SCREENSHOTS, `compose-attachments-${setting.name.replace(/\W+/g, '-')}-${name}-${width}.png`);

    it('holds Send and Save draft while an upload runs, showing it as uploading, and frees them when it ends', async () => {
      const page = await signedInPage(stand, await stand.server.account('cu'), { width: 1280 });
      await page.waitForSelector('#messagelist');
      await page.goto(`${stand.server.baseUrl}/webmail/?_task=mail&_action=compose`);
      await page.waitForURL(/_id=/);
      // The upload's answer is held until the test has looked at the page: no timing, only this gate.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route(/_action=upload/, async (route) => {
        await held;
        await route.continue();
      });
      await page.setInputFiles('#upload-input', [{ name: 'slow.txt', mimeType: 'text/plain', buffer: Buffer.from('slow') }]);
      await page.locator('#attachment-list li.uploading progress').waitFor();
      assert.equal(await page.locator('#send-button').isDisabled(), true);
      assert.equal(await page.locator('#savedraft-button').isDisabled(), true);
      release();
      await page.locator('#attachment-list li:not(.uploading)', { hasText: 'slow.txt' }).waitFor();
      assert.equal(await page.locator('#attachment-list li.uploading').count(), 0);
      assert.equal(await page.locator('#send-button').isDisabled(), false);
      assert.equal(await page.locator('#savedraft-button').isDisabled(), false);
    });

    for (const width of [1280, 380])
      it(`at ${width} px: uploads without a reload, removes one, refuses one over the limit, saves a draft, resumes it and sends it; axe clean`, async () => {
        const [writer, reader] = [await stand.server.account('cw'), await stand.server.account('cr')];
        const page = await signedInPage(stand, writer, { width });
        await page.waitForSelector('#messagelist');
        await page.goto(`${stand.server.baseUrl}/webmail/?_task=mail&_action=compose`);
        await page.waitForURL(/_id=/);
        const to = `${reader.username}@localhost`.toLowerCase();
        const subject = `Figures ${width} ${Date.now()}`;
        await page.fill('#_to', to);
        await page.fill('#_subject', subject);
        await page.fill('#_body', 'The figures, attached.\nRegards');
        // A reload would lose this mark (and what was typed): the uploads and the remove must not reload.
        await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
        assert.equal(await page.locator('#upload-button').isVisible(), false, 'with script the files go when chosen');

        await page.setInputFiles('#upload-input', [
          { name: NON_ASCII, mimeType: 'application/pdf', buffer: PDF },
          { name: HOSTILE, mimeType: 'text/plain', buffer: Buffer.from('x') },
        ]);
        await page.locator('#attachment-list li:not(.uploading)').nth(1).waitFor();
        assert.deepEqual(await names(page), [NON_ASCII, HOSTILE]);
        assert.equal(await page.locator('#attachment-list img').count(), 0, 'the name stayed text');
        await page.setInputFiles('#upload-input', [{ name: LONG_NAME, mimeType: 'application/pdf', buffer: PDF }]);
        await page.locator('#attachment-list li:not(.uploading)').nth(2).waitFor();
        await page.getByRole('button', { name: `Remove ${HOSTILE}`, exact: true }).click();
        await page.locator('#attachment-list li', { hasText: 'onerror' }).waitFor({ state: 'detached' });
        assert.equal(await page.evaluate(() => (window as unknown as { owned?: number }).owned), undefined);
        assert.deepEqual(await names(page), [NON_ASCII, LONG_NAME]);

        // Over the limit: the server's 413 says why in the live region, and nothing is attached.
        await page.setInputFiles('#upload-input', [
          { name: 'too big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(UPLOAD_LIMITS.fileBytes + 1, 7) },
        ]);
        const alert = page.locator('#messagestack[aria-live] .notice.error');
        await alert.waitFor();
        assert.match((await alert.textContent())!, /exceeds the maximum size of 2\.0 MB/);
        await page.locator('#attachment-list li.uploading').waitFor({ state: 'detached' });
        assert.deepEqual(await names(page), [NON_ASCII, LONG_NAME]);
        assert.equal(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'the page did not reload');
        assert.equal(await page.inputValue('#_subject'), subject);
        assert.equal(await page.inputValue('#_to'), to);

        await page.screenshot({ path: shot('compose', width), fullPage: true });
        assert.ok(await noSidewaysScroll(page), 'no sideways scrolling on the compose page');
        const nameBox = (await page.locator('#attachment-list .attachment-name', { hasText: 'Quartals' }).boundingBox())!;
        assert.ok(nameBox.x + nameBox.width <= width, `the long name wraps inside the window (ends at ${nameBox.x + nameBox.width})`);
        assert.deepEqual(await axeViolations(page), []);

        await page.click('#savedraft-button');
        await page.locator('#messagestack .notice', { hasText: 'Message saved to Drafts.' }).waitFor();
        await page.goto(`${stand.server.baseUrl}/webmail/?_task=mail&_mbox=Drafts`);
        const draftLink = page.locator('#messagelist tbody td.subject a', { hasText: subject });
        await draftLink.waitFor();
        await page.screenshot({ path: shot('drafts', width), fullPage: true });
        assert.ok(await noSidewaysScroll(page), 'no sideways scrolling on Drafts');
        assert.deepEqual(await axeViolations(page), []);

        await openAsPage(draftLink);
        await page.click('#edit-draft-button');
        await page.waitForURL(/_action=compose&_id=/);
        assert.equal(await page.inputValue('#_to'), to);
        assert.equal(await page.inputValue('#_subject'), subject);
        assert.equal((await page.inputValue('#_body')).trimEnd(), 'The figures, attached.\nRegards');
        assert.deepEqual(await names(page), [NON_ASCII, LONG_NAME], 'the draft brought its files back');

        await page.click('#send-button');
        await page.waitForURL(/_mbox=Sent/);
        const sentLink = page.locator('#messagelist tbody td.subject a', { hasText: subject });
        await sentLink.waitFor();
        await openAsPage(sentLink);
        assert.deepEqual(await page.locator('.attachments .filename').allTextContents(), [NON_ASCII, LONG_NAME]);
        await page.goto(`${stand.server.baseUrl}/webmail/?_task=mail&_mbox=Drafts`);
        await page.waitForSelector('#messagelist');
        assert.equal(await page.locator('#messagelist tbody td.subject a', { hasText: subject }).count(), 0, 'sending removed the draft');
      });
  });
