#!/usr/bin/env node
// Entry point of `npm start` and `npm test`. Plain JavaScript with no dependencies, because it
// runs before anything is installed: checks Node, installs what is missing, then hands over to
// the TypeScript script (scripts/start.ts or scripts/test.ts) and waits for it.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const command = process.argv[2];
if (command !== 'start' && command !== 'test') {
  console.error('usage: node scripts/bootstrap.mjs start|test [args]');
  process.exit(2);
}

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`Node ${process.versions.node} is too old: this project needs Node 20.19 or newer.`);
  process.exit(1);
}

ensureDependencies();

const child = spawn(
  process.execPath,
  ['--import', 'tsx', path.join('scripts', `${command}.ts`), ...process.argv.slice(3)],
  {
    cwd: root,
    stdio: 'inherit',
  },
);
// The child decides how to shut down; this process only passes signals on and waits for it.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (child.exitCode === null) child.kill(signal);
  });
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
// npm exits on SIGTERM without passing it on; when our parent goes away, shut down the same way.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent && child.exitCode === null) child.kill('SIGTERM');
}, 500).unref();

function ensureDependencies() {
  const lockFile = path.join(root, 'package-lock.json');
  const stampFile = path.join(root, 'node_modules', '.podmatch-installed');
  const wanted = createHash('sha256')
    .update(fs.readFileSync(lockFile))
    .update(fs.readFileSync(path.join(root, 'package.json')))
    .digest('hex');
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === wanted) return;
  // npm install, not npm ci: this npm writes locks without other platforms' optional binaries,
  // which npm ci then rejects. --no-save keeps the committed lock as it is.
  console.log('Installing dependencies (npm install)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    ['install', '--no-save', '--include=dev', '--no-audit', '--no-fund', '--loglevel=error'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (result.status !== 0) {
    console.error('Installing dependencies failed; see the output above.');
    process.exit(1);
  }
  fs.writeFileSync(stampFile, wanted);
}
