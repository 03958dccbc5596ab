// The HTML replay in a real browser (headless Chromium through playwright-core): `simpulse run --html` of the
// domino chain opens from a file URL with no network request, draws a non-blank first frame, holds one scene
// object per body, shows the result's final time and positions when scrubbed to the end, shows contact
// points, names the body that is clicked, plays at the chosen speed, follows a body, and leaves a screenshot. Fails (never skips) if Chromium cannot
// start. Registered in ctest (tests/CMakeLists.txt):
//   node replay.test.mjs SIMPULSE_CLI SOURCE_DIR [SCREENSHOT.png]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [cli, source, screenshot] = process.argv.slice(2);
const { launchChromium, openReplay } = await import(pathToFileURL(join(source, 'engine', 'viewer', 'chromium.mjs')));

let failures = 0;
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures += 1;
}

const dir = mkdtempSync(join(tmpdir(), 'simpulse-replay-'));
const html = join(dir, 'replay.html');
const resultPath = join(dir, 'result.json');
execFileSync(cli, ['run', join(source, 'scenes', 'domino_chain.json'), '--html', html, '--out', resultPath, '--quiet'],
  { stdio: 'inherit' });
const result = JSON.parse(readFileSync(resultPath, 'utf8'));

const browser = await launchChromium();  // throws (the test fails) if Chromium cannot start
try {
  const { page, errors, requests } = await openReplay(browser, html);
  check(requests.length === 0, `no network requests (${requests.length}: ${requests.slice(0, 3).join(' ')})`);

  // The first frame is not blank: the luminance of the canvas varies.
  const spread = await page.evaluate(() => {
    const gl = document.getElementById('canvas');
    const c = document.createElement('canvas');
    c.width = gl.width; c.height = gl.height;
    const ctx = c.getContext('2d');
    ctx.drawImage(gl, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    let n = 0, sum = 0, sum2 = 0;
    for (let i = 0; i < d.length; i += 4) {
      const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      n += 1; sum += y; sum2 += y * y;
    }
    const mean = sum / n;
    return { std: Math.sqrt(sum2 / n - mean * mean), width: c.width, height: c.height };
  });
  // A flat background is one grey level; bodies, shading and the table spread it by tens of levels.
  check(spread.std > 5, `canvas ${spread.width}x${spread.height} not blank: luminance std ${spread.std.toFixed(2)} > 5`);

  const objects = await page.evaluate(() => window.simpulse.sceneBodyCount());
  check(objects === result.bodies.length, `scene graph: ${objects} body objects for ${result.bodies.length} bodies`);

  // Scrub to the end with the keyboard on the time slider (End: the slider's maximum).
  await page.focus('#scrubber');
  await page.keyboard.press('End');
  const shown = await page.textContent('#time');
  const shownTime = Number(/t = ([0-9.]+) s/.exec(shown)[1]);
  // Shown with 4 decimals: within 5e-5 s of the result's time.
  check(Math.abs(shownTime - result.time) <= 5e-5, `displayed "${shown}" vs result time ${result.time}`);
  const body = result.bodies.find((b) => b.name === 'domino_1');
  const at = await page.evaluate((name) => window.simpulse.bodyPosition(name), body.name);
  // The animation carries single precision: |x| 2^-24 < 1e-6 max(1, |x|).
  const error = Math.max(...at.map((x, k) => Math.abs(x - body.position[k]) / Math.max(1, Math.abs(body.position[k]))));
  check(error <= 1e-6, `${body.name} at the end ${JSON.stringify(at)} vs result ${JSON.stringify(body.position)}: scaled error ${error.toExponential(2)}`);

  // Contact points at the middle of the chain (the dominoes falling onto each other).
  await page.check('#contacts');
  await page.evaluate(() => window.simpulse.setTime(window.simpulse.domino.striker_hit + window.simpulse.domino.chain_time / 2));
  const contacts = await page.textContent('#contact-count');
  check(/^[1-9][0-9]* contact points/.test(contacts), `contacts shown mid-chain: "${contacts}"`);

  // Back to the start (Home on the slider), where the dominoes stand in a row: click the dynamic body nearest
  // to the camera (at the row's end, nothing in front of it) and read its name in the info panel.
  await page.focus('#scrubber');
  await page.keyboard.press('Home');
  const names = result.bodies.map((b) => b.name);
  const candidates = [];
  for (const name of names) {
    const s = await page.evaluate((n) => window.simpulse.state(n), name);
    if (!s.dynamic) continue;
    const p = await page.evaluate((n) => window.simpulse.screenPosition(n), name);
    if (p.x > 0 && p.y > 0 && p.x < 960 - 440 && p.y < 500) candidates.push({ name, ...p });
  }
  candidates.sort((a, b) => a.distance - b.distance);
  check(candidates.length > 0, `${candidates.length} dynamic bodies on screen`);
  if (candidates.length > 0) {
    const c = candidates[0];
    await page.mouse.click(c.x, c.y);
    const clicked = await page.textContent('#info .name').catch(() => null);
    check(clicked === c.name, `clicked at (${c.x.toFixed(0)}, ${c.y.toFixed(0)}): info names "${clicked}", expected "${c.name}"`);
  }

  // Play at 0.5x for about a second: the replay's clock runs at half the wall clock (to within the frames at
  // the two ends, a few tens of milliseconds each).
  await page.selectOption('#speed', '0.5');
  await page.focus('#scrubber');
  await page.keyboard.press('Home');
  await page.click('#play');
  const started = await page.evaluate(() => performance.now());
  await page.waitForTimeout(1000);
  await page.click('#play');
  const [stopped, played] = await page.evaluate(() => [performance.now(), window.simpulse.time()]);
  const rate = played / ((stopped - started) / 1000);
  check(rate > 0.35 && rate < 0.65, `played at 0.5x: t = ${played.toFixed(3)} s in ${((stopped - started) / 1000).toFixed(3)} s of wall time (rate ${rate.toFixed(2)})`);

  // Follow domino_1: the camera's target moves with it (by its displacement between two times).
  await page.selectOption('#follow', { label: 'domino_1' });
  const before = await page.evaluate(() => [window.simpulse.cameraTarget(), window.simpulse.bodyPosition('domino_1')]);
  await page.evaluate(() => window.simpulse.setTime(window.simpulse.duration));
  const after = await page.evaluate(() => [window.simpulse.cameraTarget(), window.simpulse.bodyPosition('domino_1')]);
  const drift = Math.max(...[0, 1, 2].map((k) => Math.abs((after[0][k] - before[0][k]) - (after[1][k] - before[1][k]))));
  check(drift < 1e-9, `follow: the camera target moved with domino_1 (difference ${drift.toExponential(2)} m)`);

  if (screenshot) await page.screenshot({ path: screenshot });
  check(errors.length === 0, `no page errors (${errors.join(' | ')})`);
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`${failures} checks failed`);
  process.exit(1);
}
console.log('all checks passed');
