// Headless Chromium for the replay's browser test and the README's screenshots: Debian's /usr/bin/chromium
// driven by playwright-core, with WebGL on SwiftShader (no GPU) and no background network traffic (the
// closed network refuses it). Throws if Chromium cannot start: callers fail, they do not skip.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { chromium } = require('playwright-core');

// playwright gives every launch a fresh temporary profile (its own --user-data-dir) and removes it on close.
export async function launchChromium() {
  const executablePath = process.env.SIMPULSE_CHROMIUM || '/usr/bin/chromium';
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--use-gl=angle', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    ],
  });
  return browser;
}

// Opens a replay page from a file URL and waits until the viewer has drawn its first frame.
export async function openReplay(browser, htmlPath, viewport = { width: 960, height: 540 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const requests = [];
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) requests.push(r.url()); });
  await page.goto(`file://${htmlPath}`);
  await page.waitForFunction(() => window.simpulse && (window.simpulse.error || window.simpulse.frames >= 2), null, { timeout: 120000 });
  const error = await page.evaluate(() => window.simpulse.error);
  if (error) throw new Error(`the viewer failed: ${error}`);
  return { page, errors, requests };
}
