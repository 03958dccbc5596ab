// The plots beside the 3-D view (uPlot): kinetic, potential and total energy; linear momentum; the contact
// event timeline (each contact_begin at its time, by the body it involves); each with a cursor line at the
// replay's current time.
import uPlot from 'uplot';

// A uPlot plugin drawing a vertical line at the time returned by `now()`.
function timeCursor(now) {
  return {
    hooks: {
      draw: (u) => {
        const x = u.valToPos(now(), 'x', true);
        const ctx = u.ctx;
        ctx.save();
        ctx.strokeStyle = '#d33';
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.restore();
      },
    },
  };
}

// Axis numbers in at most about 7 characters: 0.025, 1200, 3.07e+6.
function compact(v) {
  if (v === null || v === undefined) return '';
  const a = Math.abs(v);
  return a !== 0 && (a >= 1e5 || a < 1e-3) ? v.toExponential(2) : String(Number(v.toPrecision(4)));
}

function plot(parent, title, series, data, now, width, extra = {}) {
  const opts = {
    title,
    width,
    height: 150,
    plugins: [timeCursor(now)],
    scales: { x: { time: false } },
    legend: { live: false },
    cursor: { drag: { x: false, y: false } },
    series: [{ label: 't (s)' }, ...series],
    axes: [{ label: 't (s)' }, { size: 76, values: (u, values) => values.map(compact) }],
    ...extra,
  };
  const el = document.createElement('div');
  parent.appendChild(el);
  return new uPlot(opts, data, el);
}

export function makePlots(parent, extras, now, width) {
  const t = extras.times;
  const kinetic = extras.kinetic;
  const potential = extras.potential;
  const total = t.map((_, k) => kinetic[k] + potential[k]);
  const plots = [];
  plots.push(
    plot(parent, 'Energy (J)', [
      { label: 'kinetic', stroke: '#2a7' },
      { label: 'potential', stroke: '#27c' },
      { label: 'total', stroke: '#555', dash: [4, 4] },
    ], [t, kinetic, potential, total], now, width),
  );
  const m = extras.momentum;
  plots.push(
    plot(parent, 'Linear momentum (kg m/s)', [
      { label: 'px', stroke: '#c52' },
      { label: 'py', stroke: '#5a2' },
      { label: 'pz', stroke: '#25c' },
    ], [t, m.map((p) => p[0]), m.map((p) => p[1]), m.map((p) => p[2])], now, width),
  );
  // Timeline: each contact_begin as a point at (time, index of its later body in the scene).
  const index = new Map(extras.bodies.map((b, i) => [b.name, i]));
  const begins = extras.events.filter((e) => e.type === 'begin');
  const ex = [t[0], ...begins.map((e) => e.t), t[t.length - 1]];
  const ey = [null, ...begins.map((e) => Math.max(index.get(e.a), index.get(e.b))), null];
  plots.push(
    plot(parent, `Contact events (${begins.length} begins; y: body index)`, [
      { label: 'contact begin', stroke: '#a3c', paths: () => null, points: { show: true, size: 5, fill: '#a3c' } },
    ], [ex, ey], now, width),
  );
  return plots;
}
