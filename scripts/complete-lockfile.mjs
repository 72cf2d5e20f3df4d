// Adds lock entries for platform-specific optional packages that the registry mirror of this workplace does
// not serve (darwin, win32, …). Without them `npm ci` refuses the lock as out of sync. Each entry carries
// its os/cpu/libc, so npm skips it on other machines and installs it where it matches.
// Run after `npm install` changes the lock: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = { darwin: 'darwin', win32: 'win32', linux: 'linux', android: 'android', freebsd: 'freebsd', openharmony: 'openharmony' };
const CPU = {
  arm64: 'arm64',
  x64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
};

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS[part]);
  const cpu = parts.find((part) => CPU[part]);
  if (!os || !cpu) return null;
  const libc = parts.some((part) => part.startsWith('musl')) ? ['musl'] : os === 'linux' ? ['glibc'] : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
let added = 0;
for (const entry of Object.values(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const platform = platformOf(name);
    if (lock.packages[key] || !platform) continue;
    lock.packages[key] = { version, ...platform, ...(entry.dev ? { dev: true } : {}), optional: true };
    added++;
  }
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
);
writeFileSync('package-lock.json', `${JSON.stringify({ ...lock, packages: sorted }, null, 2)}\n`);
console.log(`added ${added} platform entries`);
