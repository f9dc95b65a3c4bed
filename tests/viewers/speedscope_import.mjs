// Imports a trace-event JSON file with speedscope's own import code (the npm
// package's release bundle, run under Node.js) and checks what it made of it.
//
//   node speedscope_import.mjs FILE [--profiles N] [--min-frames N] [--frame NAME|PREFIX*]...
//
// The bundle is the browser app; its trace-event importer is not exported, so
// this loads the bundle in a VM context with a minimal window/document, stops it
// before it renders, and takes the importer the format sniffer calls ("Importing
// as Trace Event Format profile"). Prints one JSON line: profiles, their names
// and frame counts. Exits 1 when the import fails or an expectation does not hold.
import fs from 'node:fs'
import path from 'node:path'
import vm from 'node:vm'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

function fail(msg) {
  console.error(`speedscope_import: ${msg}`)
  process.exit(1)
}

function loadImporter() {
  const pkg = path.dirname(require.resolve('speedscope/package.json'))
  const dir = path.join(pkg, 'dist', 'release')
  const bundle = fs.readdirSync(dir).find(f => /^speedscope-.*\.js$/.test(f))
  if (!bundle) fail(`no speedscope bundle in ${dir}`)
  let code = fs.readFileSync(path.join(dir, bundle), 'utf8')
  const m = /Importing as Trace Event Format profile"\),([A-Za-z_$][\w$]*)\(/.exec(code)
  if (!m) fail('the trace-event importer was not found in the speedscope bundle')
  const boot = code.lastIndexOf('console.log(`speedscope v')
  if (boot < 0) fail('the app start was not found in the speedscope bundle')
  code = code.slice(0, boot) + `globalThis.__latsimImport=${m[1]};})();`
  const noop = () => {}
  const element = () => ({ style: {}, setAttribute: noop, appendChild: noop, addEventListener: noop,
    getContext: () => null, sheet: { insertRule: noop, cssRules: [] } })
  const document = { createElement: element, createTextNode: element, head: element(),
    body: element(), addEventListener: noop, querySelector: () => null, documentElement: element() }
  const window = { addEventListener: noop, removeEventListener: noop, location: { hash: '', search: '', href: '' },
    devicePixelRatio: 1, matchMedia: () => ({ matches: false, addEventListener: noop, addListener: noop }),
    navigator: { userAgent: 'node', platform: 'node' }, document, requestAnimationFrame: noop,
    localStorage: { getItem: () => null, setItem: noop } }
  // The importer warns (and drops the event) when an end does not match the open
  // slice on top of its track's stack: the picture would be wrong, so such warnings fail.
  const quiet = { ...console, warn: (...m) => warnings.push(m.join(' ')) }
  const ctx = vm.createContext({ ...window, window, self: window, console: quiet, setTimeout, clearTimeout,
    TextDecoder, TextEncoder, URL, URLSearchParams, Uint8Array, ArrayBuffer, DataView, Map, Set,
    WeakMap, Promise, performance })
  vm.runInContext(code, ctx, { filename: bundle })
  if (typeof ctx.__latsimImport !== 'function') fail('could not take the importer out of the bundle')
  return ctx.__latsimImport
}

const args = process.argv.slice(2)
if (args.length < 1) fail('usage: speedscope_import.mjs FILE [--profiles N] [--min-frames N] [--frame NAME]...')
const file = args[0]
let wantProfiles = null, minFrames = 0
const wantFrames = []
for (let i = 1; i < args.length; i += 2) {
  if (args[i] === '--profiles') wantProfiles = Number(args[i + 1])
  else if (args[i] === '--min-frames') minFrames = Number(args[i + 1])
  else if (args[i] === '--frame') wantFrames.push(args[i + 1])
  else fail(`unknown argument ${args[i]}`)
}

const warnings = []
const importTraceEvents = loadImporter()
const json = JSON.parse(fs.readFileSync(file, 'utf8'))
let group
try {
  group = importTraceEvents(json)
} catch (e) {
  fail(`speedscope rejected ${file}: ${e && e.stack || e}`)
}
if (!group || !Array.isArray(group.profiles) || group.profiles.length === 0)
  fail(`speedscope imported no profile from ${file}`)

const frames = new Set()
const profiles = group.profiles.map(p => {
  const names = new Set()
  p.forEachFrame(f => { names.add(f.name); frames.add(f.name) })
  return { name: p.getName(), frames: names.size, total: p.getTotalWeight() }
})
console.log(JSON.stringify({ file, profiles: profiles.length, frames: frames.size, tracks: profiles }))
const misnested = warnings.filter(w => /Doing nothing instead|still open at end/.test(w))
if (misnested.length)
  fail(`speedscope could not nest ${misnested.length} event(s), first: ${misnested[0]}`)
if (wantProfiles !== null && profiles.length !== wantProfiles)
  fail(`expected ${wantProfiles} profiles (tracks), speedscope made ${profiles.length}`)
if (frames.size < minFrames) fail(`expected at least ${minFrames} frames, got ${frames.size}`)
// speedscope names a frame "NAME {ARGS}" when its events carry args; "PREFIX*" matches
// any name that starts with PREFIX.
const hasFrame = f => f.endsWith('*')
  ? [...frames].some(n => n.startsWith(f.slice(0, -1)))
  : frames.has(f) || [...frames].some(n => n.startsWith(f + ' {'))
for (const f of wantFrames) if (!hasFrame(f)) fail(`frame "${f}" is missing`)
