// run.mjs WASM JOBS [FIRST [END]]: runs the WASI module WASM once per job
// of the JSON file JOBS, from job FIRST (0) to before END (all), under
// Node's node:wasi, compiling
// it once, and prints each job's exit code on a line of its own as soon as
// the job is done. A job is {"args": [...], "env": {...},
// "cwd": DIR, "stdin": PATH, "-" or null, "stdout": PATH, "stderr": PATH};
// the module sees the host's file system at / and the working directory
// cwd. Node's own warnings (node:wasi is experimental) go to Node's
// stderr, never to a job's; run it with --no-warnings --expose-gc. With
// CAIRN_WASI_TIMES set it prints each job's wall time on its stderr
// (scripts/wasm-bench.sh).
import { WASI } from 'node:wasi';
import { openSync, closeSync, readFileSync } from 'node:fs';

const [wasmPath, jobsPath, first, end] = process.argv.slice(2);
const mod = await WebAssembly.compile(readFileSync(wasmPath));
const jobs = JSON.parse(readFileSync(jobsPath, 'utf8'));
let done = 0;
for (const job of jobs.slice(Number(first ?? 0), end === undefined ? undefined : Number(end))) {
  // "-" is this process's own standard input (a pipe, for one job).
  const stdin = job.stdin === '-' ? 0 : openSync(job.stdin ?? '/dev/null', 'r');
  const stdout = openSync(job.stdout, 'w');
  const stderr = openSync(job.stderr, 'w');
  const wasi = new WASI({
    version: 'preview1',
    args: ['cairn', ...job.args],
    env: { ...job.env, PWD: job.cwd },
    preopens: { '/': '/' },
    stdin, stdout, stderr,
    returnOnExit: true,
  });
  const inst = await WebAssembly.instantiate(mod, wasi.getImportObject());
  const start = performance.now();
  const code = wasi.start(inst);
  if (process.env.CAIRN_WASI_TIMES) process.stderr.write(`job ${done}: ${(performance.now() - start).toFixed(1)} ms\n`);
  process.stdout.write(`${code}\n`); // synchronous on a pipe or a file
  for (const fd of [stdin, stdout, stderr]) if (fd > 2) closeSync(fd);
  // Instances that ran are garbage, but Node 20 collects their memories
  // too late: without a collection now and then it dies of SIGSEGV after
  // some 40 runs. It still dies now and then (SIGSEGV, SIGABRT) after 35
  // or more on a loaded machine: the test gives a process at most 24 jobs,
  // and starts another after the last job one finished. --expose-gc gives
  // gc.
  if (++done % 8 === 0) globalThis.gc?.();
}
