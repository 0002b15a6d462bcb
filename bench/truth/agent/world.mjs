// World builders for the truth bench: a world is one folder. A filesystem
// world is the files in it (the server is allowed that folder), a memory
// world is memory.jsonl in it (the server's MEMORY_FILE_PATH), an
// everything world is env.json in it (the only environment the server
// gets), a sqlite world is the database shop.db in it (the file the
// database server opens) and a git world is the repository repo/ in it
// (the git server's GIT_BASE_DIR is the world). The harness never reads
// these formats except to compare a world after a replay with the world
// after the agent's own run.

import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";

export const memoryFile = "memory.jsonl";
export const envFile = "env.json";
export const sqliteFile = "shop.db";
export const repoDir = "repo";

// gitEnv is all the environment git gets while a world is built: no
// configuration of the machine's, and one author. Each commit names its
// date and every other command gets a fixed one, so a world's hashes and
// reflogs are the same on every build.
const gitEnv = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Rosa Lindqvist",
  GIT_AUTHOR_EMAIL: "rosa@example.com",
  GIT_COMMITTER_NAME: "Rosa Lindqvist",
  GIT_COMMITTER_EMAIL: "rosa@example.com",
};

export class World {
  constructor(root) {
    this.root = root;
    this.tables = new Map(); // name -> {schema, rows}; written by finish
  }

  // finish writes what the builders collected but could not write at
  // once (the sqlite tables: the driver is asynchronous).
  async finish() {
    if (this.tables.size === 0) return;
    const dir = process.env.REELIER_NPM_DIR;
    if (!dir) throw new Error("REELIER_NPM_DIR is not set (the sqlite3 driver comes from there)");
    // The driver the database server itself uses, wherever npm put it.
    const sqlite3 = createRequire(path.join(dir, "node_modules", "@executeautomation", "database-server", "package.json"))("sqlite3");
    const file = this.at(sqliteFile);
    fs.rmSync(file, { force: true });
    const db = new sqlite3.Database(file);
    const run = (sql, params = []) => new Promise((ok, fail) => db.run(sql, params, (e) => (e ? fail(e) : ok())));
    for (const [name, { schema, rows }] of this.tables) {
      await run(`CREATE TABLE ${name} (${schema})`);
      for (const row of rows) {
        const cols = Object.keys(row);
        await run(`INSERT INTO ${name} (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`, cols.map((c) => row[c]));
      }
    }
    await new Promise((ok, fail) => db.close((e) => (e ? fail(e) : ok())));
  }

  at(rel) {
    return path.join(this.root, ...rel.split("/"));
  }

  // Files.
  file(rel, content) {
    fs.mkdirSync(path.dirname(this.at(rel)), { recursive: true });
    fs.writeFileSync(this.at(rel), content);
  }
  dir(rel) {
    fs.mkdirSync(this.at(rel), { recursive: true });
  }
  rename(from, to) {
    fs.renameSync(this.at(from), this.at(to));
  }
  editJSON(rel, edit) {
    const value = JSON.parse(fs.readFileSync(this.at(rel), "utf8"));
    edit(value);
    this.file(rel, JSON.stringify(value, null, 2) + "\n");
  }

  // The memory server's graph, in the server's own JSON Lines format.
  entity(name, entityType, observations) {
    return { type: "entity", name, entityType, observations };
  }
  relation(from, to, relationType) {
    return { type: "relation", from, to, relationType };
  }
  memory(entities, relations = []) {
    this.file(memoryFile, [...entities, ...relations].map((r) => JSON.stringify(r)).join("\n"));
  }
  readMemory() {
    return fs.readFileSync(this.at(memoryFile), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  }
  writeMemory(records) {
    this.file(memoryFile, records.map((r) => JSON.stringify(r)).join("\n"));
  }
  addEntity(entity, { first = false } = {}) {
    const records = this.readMemory();
    if (first) records.unshift(entity);
    else records.splice(records.filter((r) => r.type === "entity").length, 0, entity);
    this.writeMemory(records);
  }
  editEntity(name, edit) {
    const records = this.readMemory();
    const entity = records.find((r) => r.type === "entity" && r.name === name);
    if (!entity) throw new Error(`no entity ${name} in the world`);
    edit(entity);
    this.writeMemory(records);
  }
  renameEntity(from, to) {
    const records = this.readMemory();
    for (const r of records) {
      if (r.type === "entity" && r.name === from) r.name = to;
      if (r.type === "relation" && r.from === from) r.from = to;
      if (r.type === "relation" && r.to === from) r.to = to;
    }
    this.writeMemory(records);
  }

  // The everything server's environment, in order.
  env(vars) {
    this.file(envFile, JSON.stringify(vars, null, 2) + "\n");
  }
  readEnv() {
    return JSON.parse(fs.readFileSync(this.at(envFile), "utf8"));
  }
  setEnv(name, value) {
    this.env({ ...this.readEnv(), [name]: value });
  }
  renameEnv(from, to) {
    this.env(Object.fromEntries(Object.entries(this.readEnv()).map(([k, v]) => [k === from ? to : k, v])));
  }

  // The database server's tables, created in this order with their rows
  // inserted in array order (so a table without an INTEGER PRIMARY KEY
  // lists them in that order). Drifts edit the arrays.
  table(name, schema, rows) {
    this.tables.set(name, { schema, rows });
  }
  rows(name) {
    const t = this.tables.get(name);
    if (!t) throw new Error(`no table ${name} in the world`);
    return t.rows;
  }
  row(name, match) {
    const r = this.rows(name).find(match);
    if (!r) throw new Error(`no such row in ${name}`);
    return r;
  }

  // The git server's repository, built with the git program. Every
  // commit and tag names its date, so hashes do not depend on the clock.
  git(...args) {
    // Checkouts and branch moves write reflog lines with the committer's
    // date too: without a commit's own date they get a fixed one.
    const date = this.gitDate ?? "2026-03-01T00:00:00Z";
    const env = { ...gitEnv, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    return execFileSync("git", args, { cwd: this.at(repoDir), env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  }
  repo() {
    this.dir(repoDir);
    this.git("init", "-q", "-b", "main");
  }
  // commit writes files (path -> content) in the repository and commits
  // them all with subject at date (ISO 8601); it returns the hash.
  commit(subject, date, files = {}) {
    for (const [rel, content] of Object.entries(files)) this.file(`${repoDir}/${rel}`, content);
    this.gitDate = date;
    try {
      this.git("add", "-A");
      this.git("commit", "-q", "--allow-empty", "-m", subject);
      return this.git("rev-parse", "HEAD");
    } finally {
      this.gitDate = undefined;
    }
  }
  // commitOn commits on branch (created at HEAD if it does not exist)
  // and comes back to main.
  commitOn(branch, subject, date, files = {}) {
    const exists = this.git("branch", "--list", branch) !== "";
    this.git("checkout", "-q", ...(exists ? [branch] : ["-b", branch]));
    try {
      return this.commit(subject, date, files);
    } finally {
      this.git("checkout", "-q", "main");
    }
  }
  branch(name, at = "HEAD") {
    this.git("branch", name, at);
  }
  // tag makes a lightweight tag; its date in a listing is its commit's.
  tag(name, at = "HEAD") {
    this.git("tag", name, at);
  }
  // rev is the hash a revision names (a subject with :/ works too).
  rev(what) {
    return this.git("rev-parse", what);
  }
}
