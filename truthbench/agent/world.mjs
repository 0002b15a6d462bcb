// World builders for the truth bench: a world is one folder. A filesystem
// world is the files in it (the server is allowed that folder), a memory
// world is memory.jsonl in it (the server's MEMORY_FILE_PATH), and an
// everything world is env.json in it (the only environment the server
// gets). The harness never reads these formats except to compare a world
// after a replay with the world after the agent's own run.

import fs from "node:fs";
import path from "node:path";

export const memoryFile = "memory.jsonl";
export const envFile = "env.json";

export class World {
  constructor(root) {
    this.root = root;
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
}
