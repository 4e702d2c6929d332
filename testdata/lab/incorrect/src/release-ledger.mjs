// A deliberately incorrect implementation of the release-ledger lab task
// (docs/research/release-ledger-task.md): the grader's negative control.
// It looks plausible and passes most checks, but has exactly three defects,
// each marked DEFECT below, so that scripts/verify-release-ledger.mjs
// reports 12 passed, 3 failed:
//
//   check 5  - the version pattern is not anchored at the end, so
//              "1.0.0-beta" and "1.0.0.0" are accepted (missing validation);
//   check 10 - finalize is not idempotent: every call recomputes the checksum
//              over the whole stored entry, so a second call changes it;
//   check 14 - get returns a shallow copy that shares the stored notes array.
//
// Do not fix it: the lab matrix and CI depend on these exact failures.
import { createHash } from 'node:crypto';

const PACKAGE = /^[a-z][a-z0-9-]*$/;
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+/; // DEFECT (check 5): no trailing $

function fail(code, message) {
  const err = new Error(message);
  err.code = code;
  return err;
}

function validNotes(notes) {
  if (!Array.isArray(notes) || notes.length === 0) return false;
  for (let i = 0; i < notes.length; i++) {
    if (typeof notes[i] !== 'string' || notes[i].length === 0) return false;
  }
  return true;
}

function copy(entry) {
  const out = {
    package: entry.package,
    version: entry.version,
    notes: [...entry.notes],
    sequence: entry.sequence,
    state: entry.state,
  };
  if (entry.checksum !== undefined) out.checksum = entry.checksum;
  return out;
}

export function createLedger() {
  const entries = new Map();
  let next = 1;
  const key = (packageName, version) => JSON.stringify([packageName, version]);

  function find(packageName, version) {
    const entry = entries.get(key(packageName, version));
    if (!entry) throw fail('NOT_FOUND', 'no such release');
    return entry;
  }

  return {
    append(input) {
      const { package: packageName, version, notes } = input ?? {};
      if (typeof packageName !== 'string' || !PACKAGE.test(packageName)) {
        throw fail('INVALID_PACKAGE', 'package must match ^[a-z][a-z0-9-]*$');
      }
      if (typeof version !== 'string' || !VERSION.test(version)) {
        throw fail('INVALID_VERSION', 'version must be numeric x.y.z');
      }
      if (!validNotes(notes)) {
        throw fail('INVALID_NOTES', 'notes must be a non-empty array of non-empty strings');
      }
      const k = key(packageName, version);
      if (entries.has(k)) throw fail('DUPLICATE_RELEASE', 'release already recorded');
      const entry = { package: packageName, version, notes: [...notes], sequence: next, state: 'draft' };
      next += 1;
      entries.set(k, entry);
      return copy(entry);
    },

    finalize(packageName, version) {
      const entry = find(packageName, version);
      // DEFECT (check 10): no "already final" guard, and the second call
      // hashes the stored entry as it now is (state "final", old checksum).
      const body = entry.state === 'final'
        ? JSON.stringify(entry)
        : JSON.stringify({ package: entry.package, version: entry.version, notes: entry.notes, sequence: entry.sequence });
      entry.checksum = createHash('sha256').update(body).digest('hex');
      entry.state = 'final';
      return copy(entry);
    },

    get(packageName, version) {
      return { ...find(packageName, version) }; // DEFECT (check 14): notes array is shared
    },

    list() {
      return [...entries.values()].sort((a, b) => a.sequence - b.sequence).map(copy);
    },
  };
}
