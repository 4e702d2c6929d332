#!/usr/bin/env node
// verify-release-ledger.mjs MODULE_PATH
//
// The independent grader of the release-ledger lab
// (docs/research/release-ledger-task.md). It imports the module at
// MODULE_PATH, calls its createLedger() and runs exactly 15 deterministic,
// bounded checks of the task brief. It prints one line per check,
//
//   ok 1 - DESCRIPTION
//   not ok 2 - DESCRIPTION: SHORT REASON
//
// then a final line "P passed, F failed". Exit status: 0 when all 15 checks
// pass, 1 when any fails, 2 on a usage error or when the module cannot be
// imported or does not export createLedger.
//
// THIS EXECUTES THE MODULE IT IS GIVEN. Run it only on an isolated lab
// artifact, under an external timeout:
//
//   timeout 60 node scripts/verify-release-ledger.mjs /path/to/lab/src/release-ledger.mjs
//
// Each check runs in its own worker thread with a fresh import of the module,
// a memory limit and a 2 s timer; a check that hangs (even in a synchronous
// loop) or exhausts memory is terminated and reported as failed. Reasons are
// fixed texts plus short, truncated values: the grader never prints large
// values or the module's error messages. It is a correctness smoke test, not
// a sandbox and not a security audit: code running in the worker could still
// touch the file system or the network, or game the grader.
//
// Node.js standard library only (tested with Node 20).

import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

const CHECK_TIMEOUT_MS = 2000; // per check, from the worker coming online
const START_TIMEOUT_MS = 10000; // for a worker to come online at all
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 };
const USAGE = 'usage: node scripts/verify-release-ledger.mjs MODULE_PATH';

// ---------------------------------------------------------------------------
// Reporting helpers: every reason is built from fixed text and show().

class GradeFailure extends Error {}

function fail(reason) {
  throw new GradeFailure(reason);
}

// show renders a value in at most 40 characters, on one line.
function show(v) {
  let s;
  try {
    if (v === undefined) s = 'undefined';
    else if (typeof v === 'function') s = 'a function';
    else if (typeof v === 'bigint') s = `${v}n`;
    else if (typeof v === 'symbol') s = 'a symbol';
    else s = JSON.stringify(v) ?? String(v);
  } catch {
    s = `an unprintable ${typeof v}`;
  }
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

// describeThrown names what was thrown without its message.
function describeThrown(err) {
  try {
    if (err instanceof GradeFailure) return err.message;
    if (err instanceof Error) {
      const name = typeof err.name === 'string' && /^[A-Za-z]{1,40}$/.test(err.name) ? err.name : 'Error';
      return err.code === undefined ? name : `${name} with code ${show(err.code)}`;
    }
    return `a non-Error ${err === null ? 'null' : typeof err}`;
  } catch {
    return 'an unprintable value';
  }
}

// diff returns null when actual deep-equals expected, else a short reason
// naming the first difference.
function diff(actual, expected, path = '') {
  const here = path === '' ? 'value' : path;
  if (isDeepStrictEqual(actual, expected)) return null;
  const isObj = (v) => v !== null && typeof v === 'object';
  if (actual instanceof Promise) return `${here} is a Promise, want ${show(expected)} (the API is synchronous)`;
  if (!isObj(actual) || !isObj(expected) || Array.isArray(actual) !== Array.isArray(expected)) {
    return `${here} is ${show(actual)}, want ${show(expected)}`;
  }
  if (Array.isArray(expected)) {
    if (actual.length !== expected.length) {
      return `${here} has ${show(actual.length)} elements, want ${expected.length}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const d = diff(actual[i], expected[i], `${path}[${i}]`);
      if (d) return d;
    }
    return `${here} is not a plain array`;
  }
  for (const k of Object.keys(expected)) {
    if (!Object.hasOwn(actual, k)) return `${here} has no ${k}`;
  }
  for (const k of Object.keys(actual)) {
    if (!Object.hasOwn(expected, k)) return `${here} has an unexpected property ${show(k)}`;
  }
  for (const k of Object.keys(expected)) {
    const d = diff(actual[k], expected[k], `${path}.${k}`);
    if (d) return d;
  }
  return `${here} is not a plain object`;
}

function same(actual, expected, label) {
  const d = diff(actual, expected);
  if (d) fail(`${label}: ${d}`);
}

// expectCode asserts that fn throws an Error whose code is code.
function expectCode(fn, code, label) {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof Error)) fail(`${label}: threw ${describeThrown(err)}, want an Error with code ${code}`);
    if (err.code !== code) fail(`${label}: threw ${describeThrown(err)}, want code ${code}`);
    return;
  }
  fail(`${label}: did not throw, want ${code}`);
}

// open creates a ledger and wraps its methods so that an unexpected throw is
// reported with the call that threw.
function call(label, fn) {
  try {
    return fn();
  } catch (err) {
    if (err instanceof GradeFailure) throw err;
    return fail(`${label} threw ${describeThrown(err)}`);
  }
}

function open(createLedger) {
  const raw = call('createLedger()', () => createLedger());
  if (raw === null || (typeof raw !== 'object' && typeof raw !== 'function')) {
    fail(`createLedger() returned ${show(raw)}`);
  }
  return {
    raw,
    append: (input) => call(`append(${input.package}@${input.version})`, () => raw.append(input)),
    finalize: (p, v) => call(`finalize(${p}@${v})`, () => raw.finalize(p, v)),
    get: (p, v) => call(`get(${p}@${v})`, () => raw.get(p, v)),
    list: () => call('list()', () => raw.list()),
  };
}

function release(pkg, version, notes = ['note']) {
  return { package: pkg, version, notes };
}

function draft(pkg, version, notes, sequence) {
  return { package: pkg, version, notes, sequence, state: 'draft' };
}

function checksum(pkg, version, notes, sequence) {
  const body = JSON.stringify({ package: pkg, version, notes, sequence });
  return createHash('sha256').update(body).digest('hex');
}

function final(pkg, version, notes, sequence) {
  return { ...draft(pkg, version, notes, sequence), state: 'final', checksum: checksum(pkg, version, notes, sequence) };
}

// Each case table row is [label, value]; labels, not values, are printed.
const BAD_PACKAGES = [
  ['empty', ''],
  ['uppercase', 'Left-pad'],
  ['leading digit', '1pad'],
  ['leading hyphen', '-pad'],
  ['underscore', 'left_pad'],
  ['space', 'left pad'],
  ['trailing newline', 'left-pad\n'],
  ['non-ASCII letter', 'lëft'],
  ['number', 42],
  ['null', null],
  ['missing', undefined],
];
const GOOD_PACKAGES = ['a', 'left-pad', 'x9-', 'a--b'];

const BAD_VERSIONS = [
  ['empty', ''],
  ['two parts', '1.0'],
  ['one part', '1'],
  ['four parts', '1.0.0.0'],
  ['v prefix', 'v1.0.0'],
  ['pre-release suffix', '1.0.0-beta'],
  ['letter part', '1.0.x'],
  ['empty part', '1..0'],
  ['leading space', ' 1.0.0'],
  ['trailing newline', '1.0.0\n'],
  ['non-ASCII digits', '١.٠.٠'],
  ['number', 100],
  ['null', null],
  ['missing', undefined],
];
const GOOD_VERSIONS = ['0.0.0', '1.2.3', '10.20.300'];

const BAD_NOTES = [
  ['missing', undefined],
  ['null', null],
  ['a string', 'one note'],
  ['empty array', []],
  ['empty string', ['']],
  ['empty string after a note', ['ok', '']],
  ['number element', ['ok', 2]],
  ['null element', [null]],
  ['array-like object', { 0: 'a', length: 1 }],
  ['array with a hole', new Array(1)],
];
const GOOD_NOTES = [['x'], ['first', 'second', 'third'], [' spaced ', 'with "quotes"', 'ünïcode ✓']];

// ---------------------------------------------------------------------------
// The 15 checks. Each builds its own fresh ledger(s).

const CHECKS = [
  ['createLedger() returns append, finalize, get, list; a fresh ledger lists []', (createLedger) => {
    const raw = call('createLedger()', () => createLedger());
    if (raw === null || (typeof raw !== 'object' && typeof raw !== 'function')) fail(`createLedger() returned ${show(raw)}`);
    for (const m of ['append', 'finalize', 'get', 'list']) {
      if (typeof raw[m] !== 'function') fail(`${m} is ${show(raw[m])}, want a function`);
    }
    same(open(createLedger).list(), [], 'list() of a fresh ledger');
  }],

  ['append returns the new draft: exactly package, version, notes, sequence 1, state draft', (createLedger) => {
    const l = open(createLedger);
    const notes = ['first release', 'adds padStart'];
    const got = l.append({ ...release('left-pad', '1.0.0', notes), sequence: 99, state: 'final', checksum: 'x', extra: true });
    const want = draft('left-pad', '1.0.0', notes, 1);
    same(got, want, 'append result');
    same(l.get('left-pad', '1.0.0'), want, 'get after append');
  }],

  ['sequences start at 1 and grow by one; each ledger counts on its own', (createLedger) => {
    const a = open(createLedger);
    const b = open(createLedger);
    const seqs = [a.append(release('one', '1.0.0')), a.append(release('one', '1.0.1')), a.append(release('two', '1.0.0'))]
      .map((e) => e?.sequence);
    same(seqs, [1, 2, 3], 'sequences of three appends');
    same(b.append(release('one', '1.0.0'))?.sequence, 1, 'first sequence of a second ledger');
    same(a.list().map((e) => e?.sequence), [1, 2, 3], 'sequences in the first ledger');
    same(b.list().length, 1, 'entries in the second ledger');
  }],

  ['INVALID_PACKAGE for bad package names; valid names accepted', (createLedger) => {
    for (const [label, pkg] of BAD_PACKAGES) {
      const l = open(createLedger);
      expectCode(() => l.raw.append(release(pkg, '1.0.0')), 'INVALID_PACKAGE', `package ${label}`);
    }
    const l = open(createLedger);
    expectCode(() => l.raw.append({ package: 'Bad', version: 'bad', notes: [] }), 'INVALID_PACKAGE',
      'everything invalid (package is checked first)');
    for (const pkg of GOOD_PACKAGES) l.append(release(pkg, '1.0.0'));
  }],

  ['INVALID_VERSION unless the version is numeric x.y.z; valid ones accepted', (createLedger) => {
    for (const [label, version] of BAD_VERSIONS) {
      const l = open(createLedger);
      expectCode(() => l.raw.append(release('pkg', version)), 'INVALID_VERSION', `version ${label}`);
    }
    const l = open(createLedger);
    expectCode(() => l.raw.append({ package: 'pkg', version: 'bad', notes: [] }), 'INVALID_VERSION',
      'version and notes invalid (version is checked before notes)');
    for (const version of GOOD_VERSIONS) l.append(release('pkg', version));
  }],

  ['INVALID_NOTES unless notes are a non-empty array of non-empty strings', (createLedger) => {
    for (const [label, notes] of BAD_NOTES) {
      const l = open(createLedger);
      expectCode(() => l.raw.append({ package: 'pkg', version: '1.0.0', notes }), 'INVALID_NOTES', `notes ${label}`);
    }
    const l = open(createLedger);
    GOOD_NOTES.forEach((notes, i) => {
      const got = l.append(release('pkg', `1.0.${i}`, notes));
      same(got?.notes, notes, `notes of append ${i + 1}`);
    });
  }],

  ['a rejected append stores nothing and uses up no sequence number', (createLedger) => {
    const l = open(createLedger);
    expectCode(() => l.raw.append(release('Bad', '1.0.0')), 'INVALID_PACKAGE', 'bad package');
    expectCode(() => l.raw.append(release('pkg', '1.0')), 'INVALID_VERSION', 'bad version');
    expectCode(() => l.raw.append(release('pkg', '1.0.0', [])), 'INVALID_NOTES', 'bad notes');
    same(l.list(), [], 'list() after three rejected appends');
    same(l.append(release('pkg', '1.0.0'))?.sequence, 1, 'sequence of the first valid append');
    expectCode(() => l.raw.append(release('pkg', '1.0.0')), 'DUPLICATE_RELEASE', 'repeated append');
    same(l.append(release('pkg', '1.0.1'))?.sequence, 2, 'sequence after a rejected duplicate');
    same(l.list().length, 2, 'entries after a rejected duplicate');
  }],

  ['DUPLICATE_RELEASE for a package and version seen before, also after finalize', (createLedger) => {
    const l = open(createLedger);
    l.append(release('pkg', '1.0.0', ['original']));
    expectCode(() => l.raw.append(release('pkg', '1.0.0', ['other notes'])), 'DUPLICATE_RELEASE', 'same pair, other notes');
    l.append(release('pkg', '1.0.1'));
    l.append(release('other', '1.0.0'));
    l.finalize('pkg', '1.0.0');
    expectCode(() => l.raw.append(release('pkg', '1.0.0', ['again'])), 'DUPLICATE_RELEASE', 'same pair after finalize');
    same(l.get('pkg', '1.0.0')?.notes, ['original'], 'notes of the original after duplicates');
    same(l.list().length, 3, 'entries after duplicates');
  }],

  ['finalize sets state final and the SHA-256 checksum, and nothing else', (createLedger) => {
    const l = open(createLedger);
    const notes = ['fixes "quotes"', 'ünïcode ✓', 'back\\slash'];
    l.append(release('first', '0.1.0'));
    l.append(release('left-pad', '2.3.4', notes));
    const want = final('left-pad', '2.3.4', notes, 2);
    const got = l.finalize('left-pad', '2.3.4');
    if (got?.checksum !== want.checksum) {
      fail(`checksum ${show(got?.checksum)} is not the lowercase hex SHA-256 of JSON.stringify({package,version,notes,sequence})`);
    }
    same(got, want, 'finalize result');
    same(l.get('left-pad', '2.3.4'), want, 'get after finalize');
  }],

  ['finalize is idempotent: a second call returns the same entry, changes nothing', (createLedger) => {
    const l = open(createLedger);
    l.append(release('pkg', '1.0.0', ['one']));
    l.append(release('pkg', '1.1.0', ['two']));
    const first = l.finalize('pkg', '1.0.0');
    same(first, final('pkg', '1.0.0', ['one'], 1), 'first finalize result');
    const second = l.finalize('pkg', '1.0.0');
    if (second?.checksum !== first.checksum) fail('a second finalize changed the checksum');
    same(second, first, 'second finalize result');
    same(l.get('pkg', '1.0.0'), first, 'get after two finalizes');
    same(l.list().length, 2, 'entries after two finalizes');
    same(l.append(release('pkg', '1.2.0'))?.sequence, 3, 'next sequence after two finalizes');
  }],

  ['NOT_FOUND from finalize and get of a release never appended', (createLedger) => {
    const l = open(createLedger);
    expectCode(() => l.raw.finalize('ghost', '1.0.0'), 'NOT_FOUND', 'finalize on an empty ledger');
    expectCode(() => l.raw.get('ghost', '1.0.0'), 'NOT_FOUND', 'get on an empty ledger');
    l.append(release('pkg', '1.0.0'));
    expectCode(() => l.raw.finalize('pkg', '1.0.1'), 'NOT_FOUND', 'finalize of another version');
    expectCode(() => l.raw.get('pkg', '1.0.1'), 'NOT_FOUND', 'get of another version');
    expectCode(() => l.raw.finalize('other', '1.0.0'), 'NOT_FOUND', 'finalize of another package');
    expectCode(() => l.raw.get('other', '1.0.0'), 'NOT_FOUND', 'get of another package');
    same(l.list(), [draft('pkg', '1.0.0', ['note'], 1)], 'list() after the failed lookups');
  }],

  ['finalize changes only its release; drafts have no checksum', (createLedger) => {
    const l = open(createLedger);
    l.append(release('alpha', '1.0.0', ['a']));
    l.append(release('beta', '1.0.0', ['b']));
    l.append(release('alpha', '1.0.1', ['c']));
    l.finalize('beta', '1.0.0');
    same(l.get('alpha', '1.0.0'), draft('alpha', '1.0.0', ['a'], 1), 'get of the first draft');
    same(l.get('alpha', '1.0.1'), draft('alpha', '1.0.1', ['c'], 3), 'get of the last draft');
    same(l.get('beta', '1.0.0'), final('beta', '1.0.0', ['b'], 2), 'get of the finalized release');
  }],

  ['the ledger is detached from append input and append/finalize results', (createLedger) => {
    const l = open(createLedger);
    const notes = ['one', 'two'];
    const input = release('pkg', '1.0.0', notes);
    const added = l.append(input);
    notes.push('three');
    notes[0] = 'changed';
    input.version = '9.9.9';
    added.notes.push('leak');
    added.state = 'final';
    added.sequence = 42;
    same(l.get('pkg', '1.0.0'), draft('pkg', '1.0.0', ['one', 'two'], 1), 'get after changing the input and append result');
    const finalized = l.finalize('pkg', '1.0.0');
    finalized.notes.length = 0;
    finalized.checksum = 'x';
    same(l.get('pkg', '1.0.0'), final('pkg', '1.0.0', ['one', 'two'], 1), 'get after changing the finalize result');
  }],

  ['get returns a detached copy, nested notes included', (createLedger) => {
    const l = open(createLedger);
    l.append(release('pkg', '1.0.0', ['one', 'two']));
    const before = l.get('pkg', '1.0.0');
    before.notes.push('leak');
    before.notes[0] = 'changed';
    before.state = 'final';
    before.package = 'other';
    same(l.get('pkg', '1.0.0'), draft('pkg', '1.0.0', ['one', 'two'], 1), 'get after changing an earlier get result');
    same(l.finalize('pkg', '1.0.0'), final('pkg', '1.0.0', ['one', 'two'], 1), 'finalize after changing a get result');
    const after = l.get('pkg', '1.0.0');
    after.notes.length = 0;
    after.checksum = 'x';
    same(l.get('pkg', '1.0.0'), final('pkg', '1.0.0', ['one', 'two'], 1), 'get after changing a finalized get result');
  }],

  ['list returns detached copies of every entry in sequence order', (createLedger) => {
    const l = open(createLedger);
    l.append(release('zeta', '2.0.0', ['z']));
    l.append(release('alpha', '1.0.0', ['a']));
    l.append(release('mid', '0.9.0', ['m1', 'm2']));
    l.finalize('alpha', '1.0.0');
    const want = [
      draft('zeta', '2.0.0', ['z'], 1),
      final('alpha', '1.0.0', ['a'], 2),
      draft('mid', '0.9.0', ['m1', 'm2'], 3),
    ];
    const got = l.list();
    same(got, want, 'list()');
    got[0].notes.push('leak');
    got[1].state = 'draft';
    got[2].notes[0] = 'changed';
    got.reverse();
    got.pop();
    same(l.list(), want, 'list() after changing an earlier list result');
  }],
];

if (CHECKS.length !== 15) throw new Error('the grader must have exactly 15 checks');

// ---------------------------------------------------------------------------
// Worker side: import the module and run one check (or only probe it).

async function workerMain() {
  const { href, index } = workerData;
  // A rejected promise from an async implementation is already reported by
  // the check that got it; letting it also crash the worker would make the
  // reason depend on timing.
  process.on('unhandledRejection', () => {});
  let mod;
  try {
    mod = await import(href);
  } catch (err) {
    parentPort.postMessage({ kind: 'import', reason: describeThrown(err) });
    return;
  }
  if (typeof mod.createLedger !== 'function') {
    parentPort.postMessage({ kind: 'export' });
    return;
  }
  if (index < 0) {
    parentPort.postMessage({ kind: 'ok' });
    return;
  }
  try {
    await CHECKS[index][1](mod.createLedger);
    parentPort.postMessage({ kind: 'ok' });
  } catch (err) {
    const reason = err instanceof GradeFailure
      ? err.message
      : `${describeThrown(err)} while checking a result (wrong type or shape?)`;
    parentPort.postMessage({ kind: 'fail', reason });
  }
}

// ---------------------------------------------------------------------------
// Main side: one worker per check, each bounded in time and memory.

function runInWorker(href, index) {
  return new Promise((done) => {
    let settled = false;
    let timer;
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { href, index },
      env: {},
      stdout: true, // the module's console output is read and discarded
      stderr: true,
      resourceLimits: RESOURCE_LIMITS,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    const settle = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.terminate().catch(() => {});
      done(result);
    };
    const arm = (ms, reason) => {
      clearTimeout(timer);
      timer = setTimeout(() => settle({ kind: 'fail', reason }), ms);
      timer.unref();
    };
    arm(START_TIMEOUT_MS, 'the worker did not start');
    worker.on('online', () => arm(CHECK_TIMEOUT_MS, `timed out after ${CHECK_TIMEOUT_MS / 1000} s`));
    worker.on('message', (msg) => settle(msg && typeof msg.kind === 'string' ? msg : { kind: 'fail', reason: 'bad message' }));
    worker.on('error', (err) => settle({
      kind: 'fail',
      reason: err?.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? `ran out of memory (${RESOURCE_LIMITS.maxOldGenerationSizeMb} MB limit)`
        : `uncaught ${describeThrown(err)} outside the check`,
    }));
    worker.on('exit', (code) => settle({ kind: 'fail', reason: `the worker exited (status ${code}) before reporting` }));
  });
}

async function main() {
  const args = process.argv.slice(2);
  if (args.length === 1 && (args[0] === '-h' || args[0] === '--help')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (args.length !== 1 || args[0] === '' || args[0].startsWith('-')) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  const path = resolve(process.cwd(), args[0]);
  let st;
  try {
    st = statSync(path);
  } catch {
    st = null;
  }
  if (!st || !st.isFile()) {
    process.stderr.write('verify-release-ledger: MODULE_PATH is not a readable regular file\n');
    return 2;
  }
  const href = pathToFileURL(path).href;

  const probe = await runInWorker(href, -1);
  if (probe.kind === 'import') {
    process.stderr.write(`verify-release-ledger: cannot import the module: ${probe.reason}\n`);
    return 2;
  }
  if (probe.kind === 'export') {
    process.stderr.write('verify-release-ledger: the module does not export a createLedger function\n');
    return 2;
  }
  if (probe.kind !== 'ok') {
    process.stderr.write(`verify-release-ledger: cannot load the module: ${probe.reason ?? 'unknown'}\n`);
    return 2;
  }

  let passed = 0;
  for (let i = 0; i < CHECKS.length; i++) {
    const result = await runInWorker(href, i);
    const name = CHECKS[i][0];
    if (result.kind === 'ok') {
      passed++;
      process.stdout.write(`ok ${i + 1} - ${name}\n`);
    } else {
      const reason = String(result.reason ?? 'failed').replace(/[\r\n]+/g, ' ').slice(0, 200);
      process.stdout.write(`not ok ${i + 1} - ${name}: ${reason}\n`);
    }
  }
  process.stdout.write(`${passed} passed, ${CHECKS.length - passed} failed\n`);
  return passed === CHECKS.length ? 0 : 1;
}

if (isMainThread) {
  main().then(
    (code) => process.exit(code),
    () => {
      process.stderr.write('verify-release-ledger: internal error\n');
      process.exit(2);
    },
  );
} else {
  workerMain();
}
