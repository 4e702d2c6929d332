// A correct implementation of the release-ledger lab task
// (docs/research/release-ledger-task.md). It is the grader's positive
// control: scripts/verify-release-ledger.mjs must pass all 15 checks on it.
import { createHash } from 'node:crypto';

const PACKAGE = /^[a-z][a-z0-9-]*$/;
const VERSION = /^[0-9]+\.[0-9]+\.[0-9]+$/;

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
  const entries = new Map(); // key → entry, in insertion (= sequence) order
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
      if (entry.state !== 'final') {
        const body = JSON.stringify({
          package: entry.package,
          version: entry.version,
          notes: entry.notes,
          sequence: entry.sequence,
        });
        entry.checksum = createHash('sha256').update(body).digest('hex');
        entry.state = 'final';
      }
      return copy(entry);
    },

    get(packageName, version) {
      return copy(find(packageName, version));
    },

    list() {
      return [...entries.values()].sort((a, b) => a.sequence - b.sequence).map(copy);
    },
  };
}
