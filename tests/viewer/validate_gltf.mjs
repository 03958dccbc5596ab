// The Khronos glTF validator (npm gltf-validator) on the --gltf file of every scene in scenes/ and of a scene
// without dynamic bodies: no errors allowed (warnings and infos are printed). Registered in ctest
// (tests/CMakeLists.txt):  node validate_gltf.mjs SIMPULSE_CLI SOURCE_DIR
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [cli, source] = process.argv.slice(2);
const require = createRequire(join(source, 'engine', 'viewer', 'package.json'));
const validator = require('gltf-validator');

const dir = mkdtempSync(join(tmpdir(), 'simpulse-gltf-'));
const scenes = readdirSync(join(source, 'scenes'))
  .filter((f) => f.endsWith('.json'))
  .map((f) => join(source, 'scenes', f));
const still = join(dir, 'still.json');
writeFileSync(still, JSON.stringify({
  name: 'still', duration: 0.05, bodies: [
    { name: 'ground', static: true, shape: { type: 'plane', normal: [0, 0, 1] } },
    { name: 'post', static: true, shape: { type: 'cylinder', radius: 0.1, height: 2 }, position: [0, 0, 1] },
  ],
}));
scenes.push(still);

let failures = 0;
for (const scene of scenes) {
  const out = join(dir, 'run.glb');
  const result = join(dir, 'result.json');
  execFileSync(cli, ['run', scene, '--gltf', out, '--out', result, '--quiet'], { stdio: 'inherit' });
  const bytes = new Uint8Array(readFileSync(out));
  const report = await validator.validateBytes(bytes, { maxIssues: 100 });
  const { numErrors, numWarnings, numInfos } = report.issues;
  const doc = JSON.parse(Buffer.from(bytes.subarray(20, 20 + new DataView(bytes.buffer).getUint32(12, true))).toString());
  console.log(`${scene}: ${bytes.length} bytes, ${doc.nodes.length} nodes, ${numErrors} errors, ${numWarnings} warnings, ${numInfos} infos`);
  for (const m of report.issues.messages.filter((m) => m.severity <= 1))
    console.log(`  ${m.severity === 0 ? 'ERROR' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
  if (numErrors > 0) failures += 1;
  // Node count equals body count: the scene's bodies with "array" copies expanded, as the result lists them.
  const expected = JSON.parse(readFileSync(result, 'utf8')).bodies.length;
  if (doc.nodes.length !== expected) {
    console.log(`  node count ${doc.nodes.length} != body count ${expected}`);
    failures += 1;
  }
}
rmSync(dir, { recursive: true, force: true });
if (failures > 0) {
  console.error(`${failures} of ${scenes.length} files failed validation`);
  process.exit(1);
}
console.log(`all ${scenes.length} files valid`);
