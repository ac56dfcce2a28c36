// The read guard of the test suite (P5): loaded into every test process by
// scripts/test.mjs (`node --import`), it makes the file system look, to the tests,
// as it does in a clone with nothing beside it. A read of a path in the folder that
// holds the repository, but outside the repository itself, fails with ENOENT (code
// ERR_OUTSIDE_REPOSITORY on the error), `existsSync` answers false, and the path is
// appended to build/outside-reads.log; scripts/test.mjs fails the run when that log
// is not empty, so a read that a test catches and ignores is refused all the same.
//
// Not refused: hidden entries beside the repository (`.npm`, `.cache` when the
// repository sits in a home folder) and the temporary folder when it is the folder
// beside the repository (a clone in /tmp), since the tests make their scratch
// folders there. A repository at the root of the file system has no "beside" and
// the guard stays idle.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url)).replace(/[\\/]+$/, "");
const repoReal = (() => {
  try {
    return fs.realpathSync(repo);
  } catch {
    return repo;
  }
})();
const beside = dirname(repo);
const repoPrefix = repo + sep;
const log = join(repo, "build", "outside-reads.log");
const original = { appendFileSync: fs.appendFileSync, mkdirSync: fs.mkdirSync };

/** `path` is `dir` or inside it. */
const inside = (dir, path) => {
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

/** The temporary folder is exempt when it is the folder beside the repository, or lies inside it (a clone in /tmp). */
const tmp = resolve(tmpdir());
const tmpExempt = inside(beside, tmp);

/**
 * True when `path` (a string, Buffer or file URL; relative to the working directory)
 * lies beside the repository: in its parent folder, outside the repository.
 */
export function outsideRepository(path) {
  if (beside === dirname(beside)) return false;
  let p;
  if (typeof path === "string") p = path;
  else if (path instanceof URL) p = path.protocol === "file:" ? fileURLToPath(path) : "";
  else if (Buffer.isBuffer(path)) p = path.toString("utf8");
  else return false; // a file descriptor or something fs itself refuses
  if (p === "") return false;
  const abs = resolve(p);
  if (abs.startsWith(repoPrefix) || abs === repo) return false; // the common case, answered first
  if (!inside(beside, abs) || inside(repo, abs) || inside(repoReal, abs)) return false;
  if (tmpExempt && inside(tmp, abs)) return false;
  const first = relative(beside, abs).split(sep)[0] ?? "";
  return !first.startsWith(".");
}

let quiet = 0;
function refuse(path, what) {
  const abs = resolve(String(path instanceof URL ? fileURLToPath(path) : path));
  if (quiet === 0) {
    try {
      original.mkdirSync(dirname(log), { recursive: true });
      original.appendFileSync(log, `${what} ${abs}\n`);
    } catch {
      // the log is best effort; the read still fails
    }
  }
  const e = new Error(`ENOENT: ${what} of ${abs} refused: it is outside the repository (a clone has nothing beside it)`);
  e.code = "ENOENT";
  e.guard = "ERR_OUTSIDE_REPOSITORY";
  e.path = abs;
  return e;
}

/** Runs `fn` with refusals not logged (the guard's own test probes it). */
export function probe(fn) {
  quiet++;
  try {
    return fn();
  } finally {
    quiet--;
  }
}

const SYNC = ["readFileSync", "readdirSync", "statSync", "lstatSync", "openSync", "accessSync", "opendirSync", "realpathSync", "readlinkSync", "createReadStream", "copyFileSync", "cpSync", "watch", "watchFile"];
const CALLBACK = ["readFile", "readdir", "stat", "lstat", "open", "access", "opendir", "realpath", "readlink", "copyFile", "cp"];
const PROMISES = ["readFile", "readdir", "stat", "lstat", "open", "access", "opendir", "realpath", "readlink", "copyFile", "cp"];

function wrapSync(target, name) {
  const fn = target[name];
  if (typeof fn !== "function") return;
  const wrapped = function (path, ...rest) {
    if (outsideRepository(path)) throw refuse(path, name);
    return fn.call(this, path, ...rest);
  };
  // realpathSync.native and friends keep working on the original.
  Object.assign(wrapped, fn);
  target[name] = wrapped;
}

function wrapCallback(target, name) {
  const fn = target[name];
  if (typeof fn !== "function") return;
  const wrapped = function (path, ...rest) {
    if (outsideRepository(path)) {
      const error = refuse(path, name);
      const cb = rest.at(-1);
      if (typeof cb === "function") {
        process.nextTick(cb, error);
        return undefined;
      }
      throw error;
    }
    return fn.call(this, path, ...rest);
  };
  Object.assign(wrapped, fn);
  target[name] = wrapped;
}

function wrapPromise(target, name) {
  const fn = target[name];
  if (typeof fn !== "function") return;
  target[name] = async function (path, ...rest) {
    if (outsideRepository(path)) throw refuse(path, name);
    return fn.call(this, path, ...rest);
  };
}

if (!globalThis[Symbol.for("yada.readGuard")]) {
  for (const name of SYNC) wrapSync(fs, name);
  for (const name of CALLBACK) wrapCallback(fs, name);
  for (const name of PROMISES) wrapPromise(fs.promises, name);
  const exists = fs.existsSync;
  fs.existsSync = function (path) {
    if (outsideRepository(path)) {
      refuse(path, "existsSync");
      return false;
    }
    return exists.call(this, path);
  };
  syncBuiltinESMExports();
  globalThis[Symbol.for("yada.readGuard")] = { repo, beside, log, outsideRepository, probe };
}
