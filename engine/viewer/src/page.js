// The page layout of the replay viewer: the 3-D canvas with its control bar on the left, the state of the
// clicked body, the plots and (for domino scenes) the hit times on the right.

export const pageCss = `
html, body { margin: 0; height: 100%; font: 13px system-ui, sans-serif; color: #222; }
body { display: flex; }
#view { flex: 1; display: flex; flex-direction: column; min-width: 0; }
#view canvas { flex: 1; width: 100%; min-height: 0; display: block; }
#bar { display: flex; gap: 8px; align-items: center; padding: 6px; background: #dde3ea; flex-wrap: wrap; }
#bar input[type=range] { flex: 1; min-width: 120px; }
#time { font-variant-numeric: tabular-nums; min-width: 8em; }
#side { width: 440px; overflow-y: auto; padding: 6px 10px; background: #fafbfc; border-left: 1px solid #ccd; }
#side h2 { font-size: 15px; margin: 4px 0; } #side h3 { font-size: 13px; margin: 8px 0 2px; }
#info { min-height: 5em; padding: 4px; background: #fff; border: 1px solid #dde; }
.note { color: #777; font-size: 11px; }
table { border-collapse: collapse; font-size: 12px; } td, th { padding: 1px 8px; text-align: left; }
#error { color: #b00; white-space: pre-wrap; }
`;

function el(tag, attrs = {}, parent = null) {
  const e = document.createElement(tag);
  Object.assign(e, attrs);
  if (parent) parent.appendChild(e);
  return e;
}

export function buildPage(body) {
  const view = el('div', { id: 'view' }, body);
  const canvas = el('canvas', { id: 'canvas' }, view);
  const bar = el('div', { id: 'bar' }, view);
  const play = el('button', { id: 'play', textContent: 'Play' }, bar);
  const scrubber = el('input', { id: 'scrubber', type: 'range', min: '0', value: '0' }, bar);
  const time = el('span', { id: 'time' }, bar);
  el('label', { textContent: 'speed' }, bar);
  const speed = el('select', { id: 'speed' }, bar);
  for (const s of [0.05, 0.1, 0.25, 0.5, 1, 2, 4]) el('option', { value: String(s), textContent: `${s}x`, selected: s === 1 }, speed);
  el('label', { textContent: 'follow' }, bar);
  const follow = el('select', { id: 'follow' }, bar);
  el('option', { value: '-1', textContent: 'none' }, follow);
  const label = el('label', {}, bar);
  const contacts = el('input', { id: 'contacts', type: 'checkbox' }, label);
  label.append(' contacts');
  const contactCount = el('span', { id: 'contact-count', className: 'note' }, bar);
  const side = el('div', { id: 'side' }, body);
  const title = el('h2', { id: 'title' }, side);
  const energy = el('div', { id: 'energy' }, side);
  const info = el('div', { id: 'info' }, side);
  const plots = el('div', { id: 'plots' }, side);
  const domino = el('div', { id: 'domino' }, side);
  return { canvas, play, scrubber, time, speed, follow, contacts, contactCount, title, energy, info, domino, plots };
}
