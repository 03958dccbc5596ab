// The simpulse replay viewer (docs/replay.md): loads the GLB embedded in the page, shows it with three.js
// (orbit camera, play/pause, time scrubber, playback speed, follow a body, contact points and normals, click a
// body for its name and state, cables as tubes) beside plots synchronised with the time cursor. window.simpulse exposes the
// state the browser test reads (tests/viewer/replay.test.mjs).
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import uplotCss from 'uplot/dist/uPlot.min.css';
import { embeddedGlb, parseGlb, floatView } from './glb.js';
import { makePlots } from './plots.js';
import { makeCables } from './cables.js';
import { pageCss, buildPage } from './page.js';

function addStyle(text) {
  const style = document.createElement('style');
  style.textContent = text;
  document.head.appendChild(style);
}

// Index of the last sample at or before t (binary search over increasing times).
function sampleAt(times, t) {
  let lo = 0, hi = times.length - 1;
  if (t <= times[0]) return 0;
  if (t >= times[hi]) return hi;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  return lo;
}

const fmt = (v, d = 4) => (v === null || v === undefined ? '-' : Number(v).toFixed(d));
const vec = (a, d = 4) => `(${a.map((x) => fmt(x, d)).join(', ')})`;

async function start() {
  addStyle(uplotCss);
  addStyle(pageCss);
  const ui = buildPage(document.body);
  const buffer = embeddedGlb();
  const glb = parseGlb(buffer);
  const extras = glb.json.extras.simpulse;
  const times = extras.times;
  const duration = times[times.length - 1];
  // A buffer view is null when it would be empty (no contact points, say).
  const view = (index) => (index === null ? new Float32Array(0) : floatView(buffer, glb, index));
  const velocities = view(extras.velocities.bufferView);
  const contacts = view(extras.contacts.bufferView);
  const bodyCount = extras.bodies.length;
  document.title = `simpulse: ${extras.scene}`;
  ui.title.textContent = `${extras.scene} - ${bodyCount} bodies, ${times.length} samples, ${fmt(duration, 3)} s`;

  // Scene, camera and lights; the scene's up axis is the camera's.
  const renderer = new THREE.WebGLRenderer({ canvas: ui.canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xeef1f5);
  const up = new THREE.Vector3().fromArray(extras.up);
  const camera = new THREE.PerspectiveCamera(45, 1, 0.01, 1e5);
  camera.up.copy(up);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 1.6).translateOnAxis(up, 10));
  const sun = new THREE.DirectionalLight(0xffffff, 1.8);
  sun.position.copy(up.clone().multiplyScalar(10).add(new THREE.Vector3(3, -4, 2)));
  scene.add(sun);

  const gltf = await new GLTFLoader().parseAsync(buffer, '');
  scene.add(gltf.scene);
  // Body objects by scene index (the GLTF node index is the body index).
  const bodies = new Array(bodyCount).fill(null);
  gltf.scene.traverse((o) => {
    const a = gltf.parser.associations.get(o);
    if (a && a.nodes !== undefined && a.nodes < bodyCount && bodies[a.nodes] === null) bodies[a.nodes] = o;
  });
  const bodyIndex = new Map(bodies.map((o, i) => [o, i]));
  // Cables: tubes rebuilt at each shown time, coloured like a dynamic body of their material.
  const colourOf = (name) => {
    const m = (glb.json.materials || []).find((x) => x.name === name);
    const c = m ? m.pbrMetallicRoughness.baseColorFactor : [0.55, 0.4, 0.25, 1];
    return new THREE.Color(c[0], c[1], c[2]);
  };
  const cablePoints = extras.cables ? view(extras.cables.bufferView) : new Float32Array(0);
  const cables = makeCables(extras, cablePoints, colourOf);
  for (const mesh of cables.meshes) scene.add(mesh);
  const byName = new Map(extras.bodies.map((b, i) => [b.name, i]));

  const mixer = new THREE.AnimationMixer(gltf.scene);
  if (gltf.animations.length > 0) {
    const action = mixer.clipAction(gltf.animations[0]);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
  }

  // Frame where the dynamic bodies go over the whole run (their start and every sampled position, grown by
  // their size), else the static bodies other than planes (a plane's quad reaches far beyond the scene).
  const box = new THREE.Box3();
  extras.bodies.forEach((b, i) => {
    if (b.dynamic && bodies[i]) box.expandByObject(bodies[i]);
  });
  if (!box.isEmpty() && gltf.animations.length > 0) {
    let reach = 0;
    extras.bodies.forEach((b, i) => {
      if (b.dynamic && bodies[i]) reach = Math.max(reach, new THREE.Box3().setFromObject(bodies[i]).getSize(new THREE.Vector3()).length() / 2);
    });
    const p = new THREE.Vector3();
    for (const track of gltf.animations[0].tracks) {
      if (!track.name.endsWith('.position')) continue;
      for (let k = 0; k < track.values.length; k += 3) {
        p.fromArray(track.values, k);
        box.expandByPoint(p.clone().addScalar(reach)).expandByPoint(p.clone().addScalar(-reach));
      }
    }
  }
  // Every recorded control point of the cables, grown by their radius.
  if (cables.count > 0) {
    const p = new THREE.Vector3();
    const reach = Math.max(...extras.cables.list.map((c) => c.radius));
    for (let i = 0; i + 2 < cablePoints.length; i += 3) {
      p.fromArray(cablePoints, i);
      box.expandByPoint(p.clone().addScalar(reach)).expandByPoint(p.clone().addScalar(-reach));
    }
  }
  for (const wanted of [(b) => b.shape !== 'plane', () => true]) {
    if (!box.isEmpty()) break;
    extras.bodies.forEach((b, i) => {
      if (wanted(b) && bodies[i]) box.expandByObject(bodies[i]);
    });
  }
  const centre = box.getCenter(new THREE.Vector3());
  const size = Math.max(box.getSize(new THREE.Vector3()).length(), 0.1);
  const side = new THREE.Vector3(1, -1.6, 0).applyQuaternion(
    new THREE.Quaternion().setFromUnitVectors(new THREE.Vector3(0, 0, 1), up));
  camera.position.copy(centre).addScaledVector(side.normalize(), size * 1.1).addScaledVector(up, size * 0.55);
  const controls = new OrbitControls(camera, ui.canvas);
  controls.target.copy(centre);
  controls.update();

  // Contact points and normals of the current sample.
  const pointGeometry = new THREE.BufferGeometry();
  const normalGeometry = new THREE.BufferGeometry();
  const contactPoints = new THREE.Points(pointGeometry, new THREE.PointsMaterial({ color: 0xe02020, size: 6, sizeAttenuation: false, depthTest: false }));
  const contactNormals = new THREE.LineSegments(normalGeometry, new THREE.LineBasicMaterial({ color: 0xe02020, depthTest: false }));
  contactPoints.renderOrder = contactNormals.renderOrder = 1;
  scene.add(contactPoints, contactNormals);
  const normalLength = size * 0.05;
  let contactSample = -1;
  function updateContacts(k) {
    const show = ui.contacts.checked;
    contactPoints.visible = contactNormals.visible = show;
    if (!show || k === contactSample) return;
    contactSample = k;
    const from = extras.contacts.offsets[k], to = extras.contacts.offsets[k + 1];
    const p = new Float32Array(3 * (to - from)), l = new Float32Array(6 * (to - from));
    for (let i = from; i < to; ++i) {
      const c = contacts.subarray(6 * i, 6 * i + 6), j = i - from;
      p.set(c.subarray(0, 3), 3 * j);
      l.set(c.subarray(0, 3), 6 * j);
      for (let a = 0; a < 3; ++a) l[6 * j + 3 + a] = c[a] + normalLength * c[3 + a];
    }
    pointGeometry.setAttribute('position', new THREE.BufferAttribute(p, 3));
    normalGeometry.setAttribute('position', new THREE.BufferAttribute(l, 3));
    ui.contactCount.textContent = `${to - from} contact points`;
  }

  // Follow: a body list for the select; the camera keeps its offset to the followed body.
  extras.bodies.forEach((b, i) => {
    if (!b.dynamic) return;
    const option = document.createElement('option');
    option.value = String(i);
    option.textContent = b.name;
    ui.follow.appendChild(option);
  });
  let followed = -1;
  const followed_at = new THREE.Vector3();
  ui.follow.addEventListener('change', () => {
    followed = Number(ui.follow.value);
    if (followed >= 0) followed_at.copy(bodies[followed].position);
  });

  // Time: the replay's clock, the scrubber and the speed.
  let time = 0, playing = false, selected = -1;
  ui.scrubber.max = String(duration);
  ui.scrubber.step = String(Math.max(duration / 10000, 1e-6));
  const plots = makePlots(ui.plots, extras, () => time, 420);
  if (extras.domino) ui.domino.innerHTML = dominoTable(extras.domino);

  function bodyState(i) {
    const k = sampleAt(times, time);
    const o = bodies[i];
    const v = Array.from(velocities.subarray(6 * (k * bodyCount + i), 6 * (k * bodyCount + i) + 6));
    const q = o.quaternion;
    return {
      name: extras.bodies[i].name,
      shape: extras.bodies[i].shape,
      material: extras.bodies[i].material,
      dynamic: extras.bodies[i].dynamic,
      position: o.position.toArray(),
      orientation: [q.w, q.x, q.y, q.z],
      velocity: v.slice(0, 3),
      angular_velocity: v.slice(3, 6),
      sample_time: times[k],
    };
  }
  function showInfo() {
    if (selected < 0) { ui.info.textContent = 'Click a body to see its name and state.'; return; }
    const s = bodyState(selected);
    ui.info.innerHTML = `<b class="name">${s.name}</b> (${s.shape}, ${s.material}, ${s.dynamic ? 'dynamic' : 'static'})<br>` +
      `position ${vec(s.position)} m<br>orientation (w x y z) ${vec(s.orientation)}<br>` +
      `velocity ${vec(s.velocity)} m/s<br>angular velocity ${vec(s.angular_velocity)} rad/s<br>` +
      `<span class="note">velocities of the sample at t = ${fmt(s.sample_time)} s</span>`;
  }

  function setTime(t) {
    time = Math.min(Math.max(t, 0), duration);
    mixer.setTime(time);
    gltf.scene.updateMatrixWorld(true);
    const k = sampleAt(times, time);
    ui.time.textContent = `t = ${fmt(time)} s`;
    ui.scrubber.value = String(time);
    ui.energy.textContent = `kinetic ${fmt(extras.kinetic[k], 3)} J, potential ${fmt(extras.potential[k], 3)} J`;
    updateContacts(k);
    if (cables.count > 0) {
      const next = Math.min(k + 1, times.length - 1);
      const f = next > k ? Math.min(Math.max((time - times[k]) / (times[next] - times[k]), 0), 1) : 0;
      cables.update(k, next, f);
    }
    if (followed >= 0) {
      const now = bodies[followed].position;
      camera.position.add(now.clone().sub(followed_at));
      controls.target.add(now.clone().sub(followed_at));
      followed_at.copy(now);
    }
    for (const p of plots) p.redraw(false, false);
    showInfo();
  }
  ui.scrubber.addEventListener('input', () => { playing = false; ui.play.textContent = 'Play'; setTime(Number(ui.scrubber.value)); });
  ui.play.addEventListener('click', () => {
    if (!playing && time >= duration) setTime(0);
    playing = !playing;
    ui.play.textContent = playing ? 'Pause' : 'Play';
  });
  ui.contacts.addEventListener('change', () => { contactSample = -1; updateContacts(sampleAt(times, time)); });

  // Picking: the first body under the pointer.
  const raycaster = new THREE.Raycaster();
  function bodyAt(clientX, clientY) {
    const r = ui.canvas.getBoundingClientRect();
    const ndc = new THREE.Vector2(((clientX - r.left) / r.width) * 2 - 1, -((clientY - r.top) / r.height) * 2 + 1);
    raycaster.setFromCamera(ndc, camera);
    for (const hit of raycaster.intersectObjects(gltf.scene.children, true)) {
      for (let o = hit.object; o; o = o.parent) if (bodyIndex.has(o)) return bodyIndex.get(o);
    }
    return -1;
  }
  let down = null;
  ui.canvas.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
  ui.canvas.addEventListener('pointerup', (e) => {
    if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;  // a drag turns the camera
    selected = bodyAt(e.clientX, e.clientY);
    showInfo();
  });

  function resize() {
    const w = ui.canvas.clientWidth, h = ui.canvas.clientHeight;
    if (ui.canvas.width !== w || ui.canvas.height !== h) {
      renderer.setSize(w, h, false);
      camera.aspect = w / Math.max(h, 1);
      camera.updateProjectionMatrix();
    }
  }

  const hooks = {
    ready: false,
    frames: 0,
    duration,
    bodyNames: extras.bodies.map((b) => b.name),
    cableNames: extras.cables ? extras.cables.list.map((c) => c.name) : [],
    // Tube meshes in the rendered scene (one per cable).
    sceneCableCount: () => cables.meshes.filter((m) => m.parent !== null).length,
    // Objects of the rendered scene graph that stand for a body (one per body when the file is right).
    sceneBodyCount: () => bodies.filter((o) => o !== null && o.parent !== null).length,
    time: () => time,
    setTime,
    bodyPosition: (name) => bodies[byName.get(name)].getWorldPosition(new THREE.Vector3()).toArray(),
    state: (name) => bodyState(byName.get(name)),
    // Client coordinates of a body's origin, and its distance from the camera.
    screenPosition: (name) => {
      const p = bodies[byName.get(name)].getWorldPosition(new THREE.Vector3());
      const distance = p.distanceTo(camera.position);
      p.project(camera);
      const r = ui.canvas.getBoundingClientRect();
      return { x: r.left + (p.x + 1) / 2 * r.width, y: r.top + (1 - p.y) / 2 * r.height, distance };
    },
    bodyAt,
    cameraTarget: () => controls.target.toArray(),
    domino: extras.domino || null,
  };
  window.simpulse = hooks;

  setTime(0);
  let last = performance.now();
  function frame(now) {
    const dt = (now - last) / 1000;
    last = now;
    if (playing) {
      setTime(time + dt * Number(ui.speed.value));
      if (time >= duration) { playing = false; ui.play.textContent = 'Play'; }
    }
    resize();
    controls.update();
    renderer.render(scene, camera);
    hooks.frames += 1;
    hooks.ready = true;
    requestAnimationFrame(frame);
  }
  requestAnimationFrame(frame);
}

function dominoTable(d) {
  const rows = d.hits.map((h) => `<tr><td>${h.a} &rarr; ${h.b}</td><td>${h.t === null ? 'never' : fmt(h.t, 3) + ' s'}</td></tr>`).join('');
  const measured = d.measured_chain_time !== undefined
    ? `measured ${fmt(d.measured_chain_time, 2)} &plusmn; ${fmt(d.measured_uncertainty, 2)} s` : 'no measurement for this D';
  return `<h3>Domino chain (D = ${fmt(d.pitch * 100, 1)} cm)</h3>` +
    `<p>chain time (first to last hit): <b>${d.chain_time === null ? 'never' : fmt(d.chain_time, 3) + ' s'}</b>, ${measured}</p>` +
    `<table><tr><th>hit</th><th>time</th></tr>${rows}</table>`;
}

start().catch((e) => {
  document.body.insertAdjacentHTML('afterbegin', `<pre id="error">${String(e && e.stack || e)}</pre>`);
  window.simpulse = { error: String(e) };
});
