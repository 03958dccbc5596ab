// Cables in the replay viewer (docs/replay.md): each cable is a tube of its radius along its uniform cubic
// B-spline centreline, rebuilt from the recorded control points at the shown time (linear between samples).
// The curve is the engine's (cable_chain_segment): segment k uses points k-1..k+2, with the mirrored points
// 2 P0 - P1 and 2 P(n-1) - P(n-2) beyond the ends, so it runs through the first and the last point.
import * as THREE from 'three';

const kSamplesPerSegment = 8;  // centreline points per B-spline segment
const kSides = 12;             // vertices around the tube

// Centreline points of one cable from its control points `p` (flat x y z), into `out` (flat x y z).
function centreline(p, n, out) {
  const at = (i, a) => {
    if (i < 0) return 2 * p[a] - p[3 + a];
    if (i >= n) return 2 * p[3 * (n - 1) + a] - p[3 * (n - 2) + a];
    return p[3 * i + a];
  };
  let w = 0;
  for (let k = 0; k < n - 1; ++k) {
    for (let s = 0; s <= kSamplesPerSegment; ++s) {
      if (s === kSamplesPerSegment && k < n - 2) continue;  // the next segment's first point
      const u = s / kSamplesPerSegment, v = 1 - u;
      const b0 = (v * v * v) / 6, b1 = (3 * u * u * u - 6 * u * u + 4) / 6;
      const b2 = (-3 * u * u * u + 3 * u * u + 3 * u + 1) / 6, b3 = (u * u * u) / 6;
      for (let a = 0; a < 3; ++a)
        out[w++] = b0 * at(k - 1, a) + b1 * at(k, a) + b2 * at(k + 1, a) + b3 * at(k + 2, a);
    }
  }
}

// One tube mesh per cable, and update(sample, next, f) that moves them to the control points of sample
// `sample` blended by f towards sample `next`.
export function makeCables(extras, points, colourOf) {
  const list = extras.cables ? extras.cables.list : [];
  const stride = extras.cables ? 3 * extras.cables.point_count : 0;
  const tubes = list.map((c) => {
    const rings = (c.points - 1) * kSamplesPerSegment + 1;
    const geometry = new THREE.BufferGeometry();
    geometry.setAttribute('position', new THREE.BufferAttribute(new Float32Array(3 * rings * kSides), 3));
    geometry.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(3 * rings * kSides), 3));
    const index = [];
    for (let r = 0; r + 1 < rings; ++r)
      for (let s = 0; s < kSides; ++s) {
        const a = r * kSides + s, b = r * kSides + ((s + 1) % kSides), c2 = a + kSides, d = b + kSides;
        index.push(a, b, d, a, d, c2);
      }
    geometry.setIndex(index);
    const mesh = new THREE.Mesh(geometry, new THREE.MeshStandardMaterial({ color: colourOf(c.material), roughness: 0.7 }));
    mesh.name = c.name;
    mesh.frustumCulled = false;
    return { cable: c, rings, mesh, control: new Float32Array(3 * c.points), line: new Float32Array(3 * rings) };
  });

  function update(sample, next, f) {
    for (const t of tubes) {
      const base = 3 * t.cable.first_point;
      for (let i = 0; i < 3 * t.cable.points; ++i)
        t.control[i] = (1 - f) * points[sample * stride + base + i] + f * points[next * stride + base + i];
      centreline(t.control, t.cable.points, t.line);
      fillTube(t);
    }
  }

  // Rings around the centreline with frames carried along it (parallel transport), so the tube does not
  // twist where the curve turns.
  function fillTube(t) {
    const pos = t.mesh.geometry.attributes.position.array, nor = t.mesh.geometry.attributes.normal.array;
    const p = (i) => new THREE.Vector3(t.line[3 * i], t.line[3 * i + 1], t.line[3 * i + 2]);
    const tangent = (i) => p(Math.min(i + 1, t.rings - 1)).sub(p(Math.max(i - 1, 0))).normalize();
    let previous = tangent(0);
    const helper = Math.abs(previous.z) < 0.9 ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(1, 0, 0);
    const normal = new THREE.Vector3().crossVectors(previous, helper).normalize();
    const binormal = new THREE.Vector3(), radial = new THREE.Vector3(), q = new THREE.Quaternion();
    for (let r = 0; r < t.rings; ++r) {
      const tan = tangent(r);
      if (tan.lengthSq() > 0 && previous.lengthSq() > 0) {
        q.setFromUnitVectors(previous, tan);
        normal.applyQuaternion(q);
        previous = tan;
      }
      binormal.crossVectors(previous, normal).normalize();
      const centre = p(r);
      for (let s = 0; s < kSides; ++s) {
        const angle = (2 * Math.PI * s) / kSides;
        radial.copy(normal).multiplyScalar(Math.cos(angle)).addScaledVector(binormal, Math.sin(angle));
        const o = 3 * (r * kSides + s);
        nor[o] = radial.x; nor[o + 1] = radial.y; nor[o + 2] = radial.z;
        pos[o] = centre.x + t.cable.radius * radial.x;
        pos[o + 1] = centre.y + t.cable.radius * radial.y;
        pos[o + 2] = centre.z + t.cable.radius * radial.z;
      }
    }
    t.mesh.geometry.attributes.position.needsUpdate = true;
    t.mesh.geometry.attributes.normal.needsUpdate = true;
  }

  return { meshes: tubes.map((t) => t.mesh), update, count: tubes.length };
}
