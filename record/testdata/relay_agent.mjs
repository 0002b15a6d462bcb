#!/usr/bin/env node
// A scripted agent for the relay tests: the official TypeScript SDK's
// Client, declaring sampling, elicitation and roots and answering them,
// connected over stdio to the command after "--" (reelier mcp --wrap …).
// It waits until the proxy lists the tools given with --want (a server
// may add them after it started, with tools/list_changed), records the
// calls given as JSON with --call, and prints what each returned as JSON.
//
//   node relay_agent.mjs --want A,B --call '[["tool", {args}], …]' -- COMMAND ARG…
//
// The SDK is loaded from REELIER_NPM_DIR (the folder holding node_modules).

import path from "node:path";
import { createRequire } from "node:module";

const dir = process.env.REELIER_NPM_DIR;
if (!dir) throw new Error("REELIER_NPM_DIR is not set");
const require = createRequire(path.join(dir, "package.json"));
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const types = require("@modelcontextprotocol/sdk/types.js");

const argv = process.argv.slice(2);
const sep = argv.indexOf("--");
const opts = {};
for (let i = 0; i < sep; i += 2) opts[argv[i].replace(/^--/, "")] = argv[i + 1];
const [command, ...args] = argv.slice(sep + 1);
const want = (opts.want || "").split(",").filter(Boolean);
const calls = JSON.parse(opts.call || "[]");

const client = new Client(
  { name: "ts-relay-agent", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: { form: {} }, roots: { listChanged: true } } },
);
client.setRequestHandler(types.CreateMessageRequestSchema, async (req) => {
  const last = req.params.messages[req.params.messages.length - 1];
  return { model: "ts-model", role: "assistant", content: { type: "text", text: "ts says: " + last.content.text } };
});
client.setRequestHandler(types.ElicitRequestSchema, async () => ({
  action: "accept",
  content: { name: "Ada Lovelace", check: true, email: "ada@example.com" },
}));
client.setRequestHandler(types.ListRootsRequestSchema, async () => ({
  roots: [{ uri: "file:///ts/root", name: "ts-root" }],
}));
let changed = () => {};
client.setNotificationHandler(types.ToolListChangedNotificationSchema, async () => changed());

await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));

const deadline = Date.now() + 30000;
for (;;) {
  const waiter = new Promise((resolve) => (changed = resolve));
  const { tools } = await client.listTools();
  const names = new Set(tools.map((t) => t.name));
  if (want.every((w) => names.has(w))) break;
  if (Date.now() > deadline) throw new Error("the proxy never listed " + want.filter((w) => !names.has(w)).join(", "));
  await Promise.race([waiter, new Promise((r) => setTimeout(r, deadline - Date.now()))]);
}

const out = [];
for (const [name, a] of calls) {
  const res = await client.callTool({ name, arguments: a });
  out.push({ name, isError: !!res.isError, text: res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n") });
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close();
