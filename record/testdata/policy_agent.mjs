#!/usr/bin/env node
// The agent of the policy tests: the official TypeScript SDK's Client over
// stdio to the command after "--" (reelier mcp --wrap …). It makes the
// calls given as JSON with --call, in order, and prints what each
// returned, as one JSON array. --elicit says how it treats the proxy's
// elicitations: "accept" or "decline" (the capability declared, answered
// so), or "none" (the capability not declared).
//
//   node policy_agent.mjs --elicit accept --call '[["tool", {args}], …]' -- COMMAND ARG…
//
// The SDK is loaded from REELIER_NPM_DIR (the folder holding node_modules).

import path from "node:path";
import { createRequire } from "node:module";

const npm = process.env.REELIER_NPM_DIR;
if (!npm) throw new Error("REELIER_NPM_DIR is not set");
const load = createRequire(path.join(npm, "package.json"));
const { Client } = load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = load("@modelcontextprotocol/sdk/client/stdio.js");
const { ElicitRequestSchema } = load("@modelcontextprotocol/sdk/types.js");

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const flags = {};
for (let k = 0; k < dash; k += 2) flags[argv[k].slice(2)] = argv[k + 1];
const elicit = flags.elicit || "none";
const capabilities = elicit === "none" ? {} : { elicitation: { form: {} } };
const agent = new Client({ name: "ts-policy-agent", version: "1.0.0" }, { capabilities });
const asked = [];
if (elicit !== "none") {
  agent.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params.message);
    return elicit === "accept" ? { action: "accept", content: {} } : { action: "decline" };
  });
}
const [command, ...rest] = argv.slice(dash + 1);
await agent.connect(new StdioClientTransport({ command, args: rest, env: process.env, stderr: "inherit" }));

const results = [];
for (const [name, args] of JSON.parse(flags.call || "[]")) {
  const res = await agent.callTool({ name, arguments: args });
  const text = (res.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  results.push({ name, isError: Boolean(res.isError), text });
}
process.stdout.write(JSON.stringify({ results, asked }) + "\n");
await agent.close();
