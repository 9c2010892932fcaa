import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
