// Reads the run embedded in the page: the GLB (base64 in <script id="simpulse-glb">) as an ArrayBuffer, and
// the simpulse extras of its JSON chunk with typed views of the buffer views they name (velocities, contacts).

export function embeddedGlb() {
  const text = document.getElementById('simpulse-glb').textContent.trim();
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

// The GLB's JSON document and its binary chunk (glTF 2.0, section 4.4).
export function parseGlb(buffer) {
  const view = new DataView(buffer);
  if (view.getUint32(0, true) !== 0x46546c67) throw new Error('not a GLB file');
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 20, jsonLength)));
  const binStart = 20 + jsonLength + 8;
  const binLength = view.getUint32(20 + jsonLength, true);
  return { json, bin: new Uint8Array(buffer, binStart, binLength), binStart };
}

// A Float32Array over the buffer view `index` of the GLB.
export function floatView(buffer, glb, index) {
  const v = glb.json.bufferViews[index];
  return new Float32Array(buffer, glb.binStart + (v.byteOffset || 0), v.byteLength / 4);
}
