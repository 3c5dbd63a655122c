/**
 * Debian's Chromium, headless, driven by playwright-core, for the pages people open. Without
 * Chromium the browser tests are skipped with a note, unless REQUIRE_BROWSER=1 (CI), where that
 * is a failure.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const IPHONE_UA =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

/** `describe` when Chromium is there; otherwise a skip (or, under REQUIRE_BROWSER=1, a failing test). */
export function describeInBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  if (process.env.REQUIRE_BROWSER === '1') {
    it(`has Chromium for "${name}"`, () => {
      throw new Error(
        `REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH.`,
      );
    });
  } else {
    console.warn(`"${name}" skipped: no Chromium at ${CHROMIUM} (REQUIRE_BROWSER=1 makes this a failure).`);
  }
  describe.skip(name, body);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}

/** A phone: 390 × 844, touch, an iPhone's user agent. */
export function phoneContext(
  browser: Browser,
  options: { acceptDownloads?: boolean } = {},
): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: 390, height: 844 },
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
    userAgent: IPHONE_UA,
    locale: 'en-US',
    ...options,
  });
}
