// Draws a trace-event JSON timeline (latsim's --timeline output, best a window such
// as --timeline-window max:100ms) as one SVG with every track stacked: CPUs with
// their nested task -> interrupt -> function slices, critical sections, IF=0 spans,
// FSB holdoffs, PCI masters, IRQ lines, and the counters as step lines. The longest
// critical section is outlined in red. For a person (tools/screenshot), not a test.
//
//   node tools/timeline_svg.mjs TIMELINE.json OUT.svg
import fs from 'node:fs'

const [file, out] = process.argv.slice(2)
if (!file || !out) {
  console.error('usage: timeline_svg.mjs TIMELINE.json OUT.svg')
  process.exit(2)
}
const doc = JSON.parse(fs.readFileSync(file, 'utf8'))
const events = Array.isArray(doc) ? doc : doc.traceEvents

const procName = new Map(), procSort = new Map(), threadName = new Map(), threadSort = new Map()
const key = (pid, tid) => `${pid}/${tid}`
for (const e of events) {
  if (e.ph !== 'M') continue
  if (e.name === 'process_name') procName.set(e.pid, e.args.name)
  if (e.name === 'process_sort_index') procSort.set(e.pid, e.args.sort_index)
  if (e.name === 'thread_name') threadName.set(key(e.pid, e.tid), e.args.name)
  if (e.name === 'thread_sort_index') threadSort.set(key(e.pid, e.tid), e.args.sort_index)
}

// Slices per track with their depth; counters per (pid, name).
const tracks = new Map()
const track = (pid, tid) => {
  const k = key(pid, tid)
  if (!tracks.has(k)) tracks.set(k, { pid, tid, slices: [], stack: [], depth: 0 })
  return tracks.get(k)
}
const counters = new Map()
let t0 = Infinity, t1 = -Infinity, longest = null
for (const e of events) {
  if (e.ph === 'M') continue
  t0 = Math.min(t0, e.ts)
  t1 = Math.max(t1, e.ts + (e.dur || 0))
  if (e.ph === 'B') track(e.pid, e.tid).stack.push(e)
  else if (e.ph === 'E') {
    const tr = track(e.pid, e.tid)
    const b = tr.stack.pop()
    if (b) tr.slices.push({ name: b.name, from: b.ts, to: e.ts, depth: tr.stack.length })
  } else if (e.ph === 'X') {
    const tr = track(e.pid, e.tid)
    tr.slices.push({ name: e.name, from: e.ts, to: e.ts + e.dur, x: true, args: e.args })
    if (e.name === 'critical section' && (!longest || e.dur > longest.dur)) longest = e
  } else if (e.ph === 'C') {
    const k = `${e.pid}/${e.name}`
    if (!counters.has(k)) counters.set(k, { pid: e.pid, name: e.name, points: [] })
    counters.get(k).points.push([e.ts, Object.values(e.args)[0]])
  }
}
// X slices nest by time: depth from a stack of enclosing ends.
for (const tr of tracks.values()) {
  const xs = tr.slices.filter(s => s.x).sort((a, b) => a.from - b.from || b.to - a.to)
  const open = []
  for (const s of xs) {
    while (open.length && open.at(-1) <= s.from) open.pop()
    s.depth = open.length
    open.push(s.to)
  }
  tr.depth = Math.max(0, ...tr.slices.map(s => s.depth + 1))
}

const W = 1600, left = 210, right = 16, rowH = 13, gap = 6, top = 56
const span = t1 > t0 ? t1 - t0 : 1
const px = t => left + (t - t0) / span * (W - left - right)
const esc = s => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
const colour = name => {
  let h = 0
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) >>> 0
  return `hsl(${h % 360},55%,${62 + (h >> 9) % 16}%)`
}
const rows = [...tracks.values()].filter(t => t.slices.length).map(t => ({
  kind: 'slices', t, sort: [procSort.get(t.pid) ?? 99, threadSort.get(key(t.pid, t.tid)) ?? t.tid],
  label: threadName.get(key(t.pid, t.tid)) ?? `${procName.get(t.pid) ?? t.pid} ${t.tid}`,
  height: t.depth * rowH }))
for (const c of counters.values())
  rows.push({ kind: 'counter', c, sort: [procSort.get(c.pid) ?? 99, 1000], label: c.name, height: 28 })
rows.sort((a, b) => a.sort[0] - b.sort[0] || a.sort[1] - b.sort[1] || a.label.localeCompare(b.label))

let y = top
const body = []
for (const r of rows) {
  body.push(`<text x="${left - 8}" y="${y + 11}" font-size="11" text-anchor="end">${esc(r.label)}</text>`)
  body.push(`<line x1="0" y1="${y - gap / 2}" x2="${W}" y2="${y - gap / 2}" stroke="#e4e4e4"/>`)
  if (r.kind === 'slices') {
    for (const s of r.t.slices) {
      const a = px(s.from), w = Math.max(0.6, px(s.to) - a)
      const title = `${s.name} ${((s.to - s.from)).toFixed(3)} us` + (s.args ? ` ${JSON.stringify(s.args)}` : '')
      body.push(`<rect x="${a.toFixed(1)}" y="${y + s.depth * rowH}" width="${w.toFixed(1)}" height="${rowH - 1}" fill="${colour(s.name)}"><title>${esc(title)}</title></rect>`)
      if (w > 7 * s.name.length * 0.9)
        body.push(`<text x="${(a + 2).toFixed(1)}" y="${y + s.depth * rowH + 10}" font-size="9">${esc(s.name)}</text>`)
    }
  } else {
    const pts = r.c.points, max = Math.max(1e-9, ...pts.map(p => p[1]))
    let d = ''
    pts.forEach(([t, v], i) => {
      const yy = (y + r.height - 2 - v / max * (r.height - 4)).toFixed(1)
      d += i === 0 ? `M${px(t).toFixed(1)},${yy}` : `H${px(t).toFixed(1)}V${yy}`
    })
    d += `H${px(t1).toFixed(1)}`
    body.push(`<path d="${d}" fill="none" stroke="#1f77b4" stroke-width="1.2"/>`)
    body.push(`<text x="${W - right}" y="${y + 10}" font-size="9" text-anchor="end" fill="#555">max ${max}</text>`)
  }
  y += r.height + gap
}
const H = y + 40
// Time axis: round steps in ms or us.
const stepUs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]
  .find(s => span / s <= 12) ?? 100000
const axis = []
for (let t = Math.ceil(t0 / stepUs) * stepUs; t <= t1; t += stepUs) {
  axis.push(`<line x1="${px(t).toFixed(1)}" y1="${top - 8}" x2="${px(t).toFixed(1)}" y2="${y}" stroke="#f0f0f0"/>`)
  const label = stepUs >= 1000 ? `${(t / 1000).toFixed(stepUs >= 10000 ? 0 : 1)} ms` : `${(t / 1000).toFixed(3)} ms`
  axis.push(`<text x="${px(t).toFixed(1)}" y="${top - 12}" font-size="10" text-anchor="middle">${label}</text>`)
}
const mark = []
if (longest) {
  const a = px(longest.ts), b = px(longest.ts + longest.dur)
  mark.push(`<rect x="${a.toFixed(1)}" y="${top - 8}" width="${Math.max(1, b - a).toFixed(1)}" height="${y - top + 8}" fill="#d62728" fill-opacity="0.07" stroke="#d62728" stroke-width="1"/>`)
}
const title = `${file.split('/').pop()}: ${(span / 1000).toFixed(3)} ms from ${(t0 / 1e6).toFixed(6)} s` +
  (longest ? `; longest critical section ${longest.args?.latency_us} us (red)` : '')
const svg = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
<rect width="${W}" height="${H}" fill="#ffffff"/>
<text x="12" y="22" font-size="15" font-weight="bold">${esc(title)}</text>
${axis.join('\n')}
${body.join('\n')}
${mark.join('\n')}
</svg>
`
fs.writeFileSync(out, svg)
console.log(`${out}: ${rows.length} tracks`)
