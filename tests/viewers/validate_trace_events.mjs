// Checks a Chrome trace-event JSON file against the format's rules (the Trace
// Event Format document; what Perfetto and speedscope rely on):
//   - the JSON Object Format: {"traceEvents": [...]} (or a bare array);
//   - fields required per phase: every event has ph and pid; all but M have a
//     numeric ts >= 0 and tid; B, X, i/I, C and M have a name; X has dur >= 0;
//     C has numeric args; M process_name/thread_name have args.name;
//   - per track (pid, tid): B/E timestamps never go back, every E closes an open
//     B (with the same name when it carries one), nothing is left open;
//   - per track: X events nest (a slice lies inside the enclosing one or after it);
//   - flows: every s has an id and a cat, and one f with the same ones, not before it;
//     each end lies inside a slice (X, or B..E) of its track, which it binds to.
// Exits 0 when valid; prints every violation (event index and reason) and exits 1.
//
//   node validate_trace_events.mjs FILE
import fs from 'node:fs'

const file = process.argv[2]
if (!file) {
  console.error('usage: validate_trace_events.mjs FILE')
  process.exit(2)
}
const errors = []
const err = (i, msg) => { if (errors.length < 50) errors.push(`event ${i}: ${msg}`) }

let doc
try {
  doc = JSON.parse(fs.readFileSync(file, 'utf8'))
} catch (e) {
  console.error(`${file}: not JSON: ${e.message}`)
  process.exit(1)
}
const events = Array.isArray(doc) ? doc : doc && doc.traceEvents
if (!Array.isArray(events)) {
  console.error(`${file}: no traceEvents array`)
  process.exit(1)
}

const isNum = v => typeof v === 'number' && Number.isFinite(v)
const isInt = v => Number.isInteger(v)
const ns = us => Math.round(us * 1000)  // compare in integer ns: ts carries 3 decimals
const named = new Set(['B', 'X', 'i', 'I', 'C', 'M'])
const known = new Set(['B', 'E', 'X', 'i', 'I', 'C', 'M', 's', 't', 'f', 'b', 'e', 'n'])
const stacks = new Map()   // track -> open B names
const lastBE = new Map()   // track -> last B/E ts
const slices = new Map()   // track -> X [start, end, index]
const spans = new Map()    // track -> B..E [start, end]
const openAt = new Map()   // track -> start times of the open B events
const flows = new Map()    // cat/id -> {s: [ts, track, index], f: [...]}
const ends = []            // [track, ns, index] of every flow end

events.forEach((e, i) => {
  if (typeof e !== 'object' || e === null) return err(i, 'not an object')
  if (typeof e.ph !== 'string') return err(i, 'missing ph')
  if (!known.has(e.ph)) return err(i, `unknown ph "${e.ph}"`)
  if (!isInt(e.pid)) err(i, `ph ${e.ph}: missing or non-integer pid`)
  if (named.has(e.ph) && (typeof e.name !== 'string' || e.name === ''))
    err(i, `ph ${e.ph}: missing name`)
  if (e.ph === 'M') {
    if ((e.name === 'process_name' || e.name === 'thread_name') &&
        !(e.args && typeof e.args.name === 'string'))
      err(i, `M ${e.name}: missing args.name`)
    return
  }
  if (!isNum(e.ts) || e.ts < 0) err(i, `ph ${e.ph}: missing or negative ts`)
  if (!isInt(e.tid) && e.ph !== 'C') err(i, `ph ${e.ph}: missing or non-integer tid`)
  const track = `${e.pid}/${e.tid}`
  switch (e.ph) {
    case 'X':
      if (!isNum(e.dur) || e.dur < 0) return err(i, 'X: missing or negative dur')
      if (!slices.has(track)) slices.set(track, [])
      slices.get(track).push([ns(e.ts), ns(e.ts + e.dur), i])
      break
    case 'B':
    case 'E': {
      const t = ns(e.ts)
      if (lastBE.has(track) && t < lastBE.get(track))
        err(i, `${e.ph} at ${e.ts} goes back in time on track ${track}`)
      lastBE.set(track, t)
      if (!stacks.has(track)) stacks.set(track, [])
      const st = stacks.get(track)
      if (!openAt.has(track)) openAt.set(track, [])
      if (e.ph === 'B') st.push(e.name), openAt.get(track).push(t)
      else if (st.length === 0) err(i, `E on track ${track} with no open B`)
      else {
        if (!spans.has(track)) spans.set(track, [])
        spans.get(track).push([openAt.get(track).pop(), t])
        const open = st.pop()
        if (typeof e.name === 'string' && e.name !== open)
          err(i, `E "${e.name}" on track ${track} closes B "${open}"`)
      }
      break
    }
    case 'C':
      if (!e.args || typeof e.args !== 'object' || !Object.values(e.args).every(isNum) ||
          Object.keys(e.args).length === 0)
        err(i, 'C: args must hold numeric series')
      break
    case 's':
    case 'f': {
      if (e.id === undefined || typeof e.cat !== 'string') return err(i, `${e.ph}: missing id or cat`)
      const key = `${e.cat}/${e.id}`
      if (!flows.has(key)) flows.set(key, {})
      const f = flows.get(key)
      if (f[e.ph]) return err(i, `${e.ph}: a second one for flow ${key}`)
      f[e.ph] = [ns(e.ts), i]
      ends.push([track, ns(e.ts), i])
      break
    }
    case 'i':
    case 'I':
      if (e.s !== undefined && !['g', 'p', 't'].includes(e.s)) err(i, `instant: bad scope "${e.s}"`)
      break
  }
})
for (const [track, st] of stacks)
  if (st.length) errors.push(`track ${track}: ${st.length} B event(s) never ended (${st.at(-1)})`)
for (const [track, xs] of slices) {
  xs.sort((a, b) => a[0] - b[0] || b[1] - a[1])
  const open = []
  for (const [s, e, i] of xs) {
    while (open.length && open.at(-1)[1] <= s) open.pop()
    if (open.length && e > open.at(-1)[1])
      err(i, `X on track ${track} overlaps event ${open.at(-1)[2]} without nesting`)
    open.push([s, e, i])
  }
}
for (const [key, f] of flows) {
  if (!f.s || !f.f) errors.push(`flow ${key}: ${f.s ? 'no f' : 'no s'}`)
  else if (f.f[0] < f.s[0]) err(f.f[1], `flow ${key} ends before it starts`)
}
// Each flow end inside a slice of its track: sweep the slices' edges and the ends in time.
const byTrack = new Map()
for (const [track, t, i] of ends) {
  if (!byTrack.has(track)) byTrack.set(track, [])
  byTrack.get(track).push([t, 1, i])  // 1: after the starts at t, before the ends at t
}
for (const [track, points] of byTrack) {
  for (const [s, e] of [...(slices.get(track) || []), ...(spans.get(track) || [])])
    points.push([s, 0, -1], [e, 2, -1])
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let depth = 0
  for (const [, kind, i] of points) {
    if (kind === 0) depth++
    else if (kind === 2) depth--
    else if (depth === 0) err(i, `flow end on track ${track} lies in no slice`)
  }
}
if (errors.length) {
  for (const m of errors) console.error(`${file}: ${m}`)
  process.exit(1)
}
console.log(`${file}: ${events.length} events valid`)
