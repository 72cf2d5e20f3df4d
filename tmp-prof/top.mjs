import { readFileSync } from 'node:fs';
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas; const samples = prof.samples;
const counts = new Map(); samples.forEach((s, i) => counts.set(s, (counts.get(s) ?? 0) + (dt[i] ?? 0)));
let total = 0;
for (const [id, t] of counts) { const n = byId.get(id); const cf = n.callFrame; const key = `${cf.functionName || '(anon)'} ${cf.url.replace(/^.*node_modules\//, 'nm/').replace(/^file:\/\/\/work\/main\//, '')}:${cf.lineNumber}`; self.set(key, (self.get(key) ?? 0) + t); total += t; }
// inclusive by package
const parent = new Map(); for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const pkg = new Map();
for (const [id, t] of counts) { const n = byId.get(id); const u = n.callFrame.url; const m = u.match(/node_modules\/((@[^/]+\/)?[^/]+)/); const k = m ? m[1] : u.includes('/dist/src/') ? 'app:' + u.split('/dist/src/')[1].split('/').slice(0, 2).join('/') : (u || n.callFrame.functionName); pkg.set(k, (pkg.get(k) ?? 0) + t); }
console.log('total ms', (total / 1000).toFixed(0));
console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([k, t]) => `${(t / 1000).toFixed(0).padStart(6)} ${k}`).join('\n'));
console.log('--- by package (self)');
console.log([...pkg].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, t]) => `${(t / 1000).toFixed(0).padStart(6)} ${k}`).join('\n'));
