// A client of the official MCP TypeScript SDK reads a working directory's
// skills through reelier serve's Skills extension and prints what it saw as
// one JSON document. Arguments: the SDK's folder, the reelier binary, the
// working directory.
const [sdk, bin, cwd] = process.argv.slice(2);
const { Client } = await import(`${sdk}/dist/esm/client/index.js`);
const { StdioClientTransport } = await import(`${sdk}/dist/esm/client/stdio.js`);
const { z } = await import(`${sdk}/../../zod/index.js`);
const client = new Client({ name: "ts-sdk-skills", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: bin, args: ["serve", "--history-dir", ""], cwd }));
const out = { extensions: client.getServerCapabilities().extensions ?? null };
const list = await client.request({ method: "skills/list", params: {} }, z.any());
out.skills = list.skills.map((s) => ({ uri: s.uri, frontmatter: s.frontmatter, resources: s.resources }));
out.reads = {};
for (const s of list.skills) {
  for (const r of s.resources) {
    const got = await client.readResource({ uri: r.uri });
    const c = got.contents[0];
    out.reads[r.uri] = c.text !== undefined ? Buffer.from(c.text, "utf8").toString("base64") : c.blob;
  }
}
const first = list.skills[0].uri;
out.get = (await client.request({ method: "skills/get", params: { uri: first } }, z.any())).skill?.uri ?? null;
try {
  await client.request({ method: "skills/get", params: { uri: "skill://../outside/SKILL.md" } }, z.any());
  out.escape = "served";
} catch (e) {
  out.escape = e.code;
}
await client.close();
console.log(JSON.stringify(out));
