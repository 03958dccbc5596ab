// Makes the README's pictures (docs/replay_*.png, 960x540) with the replay viewer in headless Chromium: the
// domino chain mid-fall, the barrels on the hilly terrain, and a pile of 1,000 boxes (10 x 10 x 10, each
// tilted up to 10 degrees about a seeded random horizontal axis, dropped on the ground: the heap of
// bench/bench_scenes.cpp's s3).
//   node engine/viewer/screenshots.mjs BUILD/engine/simpulse [OUT_DIR=docs]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, openReplay } from './chromium.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..');
const [cli, outDir = join(root, 'docs')] = process.argv.slice(2);
if (!cli) {
  console.error('usage: node screenshots.mjs SIMPULSE_CLI [OUT_DIR]');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'simpulse-shots-'));

function pileScene() {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const bodies = [{ name: 'ground', static: true, shape: { type: 'plane', normal: [0, 0, 1], offset: 0 } }];
  for (let i = 0; i < 10; ++i)
    for (let j = 0; j < 10; ++j)
      for (let k = 0; k < 10; ++k) {
        const a = 2 * Math.PI * random();
        bodies.push({
          name: `b${i}_${j}_${k}`, shape: { type: 'box', size: [0.5, 0.5, 0.5] }, density: 1000,
          position: [-2.7 + 0.6 * i, -2.7 + 0.6 * j, 2.0 + 0.6 * k],
          orientation: { axis: [Math.cos(a), Math.sin(a), 0], angle_deg: 10 * random() },
        });
      }
  return { simpulse: 1, name: 'pile of 1000 boxes', dt: 1 / 60, duration: 3, sample_every: 0.05,
    materials: { default: { friction: 0.5, restitution: 0 } }, bodies };
}

const pile = join(dir, 'pile_1000.json');
writeFileSync(pile, JSON.stringify(pileScene()));
const shots = [
  { scene: join(root, 'scenes', 'domino_chain.json'), png: 'replay_domino.png', time: 'mid-chain' },
  { scene: join(root, 'scenes', 'barrels.json'), png: 'replay_barrels.png', time: 2.0 },
  { scene: pile, png: 'replay_pile_1000.png', time: 0.6 },
];

const browser = await launchChromium();
try {
  for (const shot of shots) {
    const html = join(dir, 'replay.html');
    execFileSync(cli, ['run', shot.scene, '--html', html, '--quiet'], { stdio: 'inherit' });
    const { page } = await openReplay(browser, html);
    await page.evaluate((time) => {
      const d = window.simpulse.domino;
      window.simpulse.setTime(time === 'mid-chain' ? (d.striker_hit + d.striker_hit + d.chain_time) / 2 : time);
    }, shot.time);
    const frames = await page.evaluate(() => window.simpulse.frames);
    await page.waitForFunction((n) => window.simpulse.frames >= n + 2, frames);
    await page.screenshot({ path: join(outDir, shot.png) });
    console.log(`${join(outDir, shot.png)}`);
    await page.close();
  }
} finally {
  await browser.close();
  rmSync(dir, { recursive: true, force: true });
}
