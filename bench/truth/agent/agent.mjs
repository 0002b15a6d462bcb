#!/usr/bin/env node
// The truth bench's scripted agent. It speaks MCP over stdio with the
// official TypeScript SDK's Client, to `reelier mcp --wrap …` when it
// records or straight to a server when it is the oracle, and plays one of
// the workflows in workflows.mjs.
//
//   node agent.mjs list
//       prints the workflows and their scenarios as JSON
//   node agent.mjs world WORKFLOW SCENARIO|seed DIR
//       builds that world in DIR (the seed, then the scenario's drift)
//   node agent.mjs play WORKFLOW WORLD [--record] -- COMMAND [ARG…]
//       starts COMMAND, plays the workflow on the world in WORLD and
//       prints {calls, gaveUp, recording} as JSON; with --record it
//       starts a recording named after the workflow, notes each step and
//       stops the recording at the end
//
// The SDK is loaded from REELIER_NPM_DIR (the folder holding node_modules),
// the same installation the Go tests use.

import path from "node:path";
import { createRequire } from "node:module";
import { workflows } from "./workflows.mjs";
import { World } from "./world.mjs";

class GiveUp extends Error {}

function sdk() {
  const dir = process.env.REELIER_NPM_DIR;
  if (!dir) throw new Error("REELIER_NPM_DIR is not set");
  const require = createRequire(path.join(dir, "package.json"));
  return {
    Client: require("@modelcontextprotocol/sdk/client/index.js").Client,
    StdioClientTransport: require("@modelcontextprotocol/sdk/client/stdio.js").StdioClientTransport,
  };
}

function workflow(name) {
  const w = workflows.find((w) => w.name === name);
  if (!w) throw new Error(`no workflow ${name}`);
  return w;
}

function list() {
  return workflows.map((w) => ({
    name: w.name,
    server: w.server,
    needs: w.needs ?? "",
    rerunnable: w.rerunnable,
    rerunWhy: w.rerunWhy,
    scenarios: w.scenarios.map(({ id, kind, what }) => ({ id, kind, what })),
  }));
}

async function buildWorld(name, scenario, dir) {
  const w = workflow(name);
  const world = new World(dir);
  world.dir(".");
  w.seed(world);
  if (scenario !== "seed") {
    const s = w.scenarios.find((s) => s.id === scenario);
    if (!s) throw new Error(`workflow ${name} has no scenario ${scenario}`);
    s.drift(world);
  }
  await world.finish();
}

// textOf joins a result's text blocks the way Reelier's replay does.
function textOf(content) {
  return (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
}

async function play(name, worldDir, record, argv) {
  const w = workflow(name);
  const { Client, StdioClientTransport } = sdk();
  const client = new Client({ name: "reelier-truthbench-agent", version: "1.0.0" });
  await client.connect(new StdioClientTransport({
    command: argv[0],
    args: argv.slice(1),
    env: { ...process.env },
    stderr: "inherit",
  }));
  const out = { calls: [], gaveUp: null, recording: null };
  const control = async (tool, args) => textOf((await client.callTool({ name: tool, arguments: args })).content);
  const pending = [];
  const flushNotes = async () => {
    while (pending.length > 0) {
      const text = pending.shift();
      if (record) await control("reelier_note", { text });
    }
  };
  const agent = {
    world: worldDir,
    note(text) { pending.push(text); },
    giveUp(why) { throw new GiveUp(why); },
    async call(tool, args) {
      await flushNotes();
      const r = await client.callTool({ name: tool, arguments: args });
      const text = textOf(r.content);
      let json;
      try { json = JSON.parse(text); } catch { json = undefined; }
      out.calls.push({ tool, args, isError: r.isError === true });
      if (r.isError) throw new GiveUp(`${tool} answered with an error: ${text}`);
      return { text, json, structured: r.structuredContent, content: r.content ?? [] };
    },
  };
  const started = record ? await control("reelier_start_recording", { name }) : null;
  try {
    await w.play(agent);
    await flushNotes();
  } catch (e) {
    if (!(e instanceof GiveUp)) throw e;
    out.gaveUp = e.message;
  }
  if (record) out.recording = { started, stopped: await control("reelier_stop_recording", {}) };
  await client.close();
  return out;
}

async function main(args) {
  switch (args[0]) {
    case "list":
      return list();
    case "world":
      await buildWorld(args[1], args[2], args[3]);
      return { built: args[3] };
    case "play": {
      const sep = args.indexOf("--");
      if (sep < 0 || sep + 1 >= args.length) throw new Error("play needs -- COMMAND");
      const flags = args.slice(3, sep);
      return play(args[1], args[2], flags.includes("--record"), args.slice(sep + 1));
    }
    default:
      throw new Error("usage: agent.mjs list | world WORKFLOW SCENARIO|seed DIR | play WORKFLOW WORLD [--record] -- COMMAND [ARG…]");
  }
}

main(process.argv.slice(2)).then(
  (result) => { process.stdout.write(JSON.stringify(result) + "\n"); },
  (err) => { process.stderr.write(`agent: ${err.stack ?? err}\n`); process.exit(1); },
);
