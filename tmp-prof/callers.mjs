import { readFileSync } from 'node:fs';
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const target = process.argv[3];
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map(); for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const counts = new Map(); prof.samples.forEach((s, i) => counts.set(s, (counts.get(s) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const stacks = new Map();
for (const [id, t] of counts) {
  if (byId.get(id).callFrame.functionName !== target) continue;
  const chain = []; let p = parent.get(id);
  while (p && chain.length < 12) { const cf = byId.get(p).callFrame; chain.push(`${cf.functionName || '(anon)'}@${cf.url.split('/').slice(-2).join('/')}:${cf.lineNumber}`); p = parent.get(p); }
  const k = chain.join(' < '); stacks.set(k, (stacks.get(k) ?? 0) + t);
}
console.log([...stacks].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, t]) => `${(t / 1000).toFixed(0)} ms: ${k}`).join('\n\n'));
