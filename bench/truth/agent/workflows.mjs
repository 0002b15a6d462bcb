// The truth bench's workflows: for each one, the world it starts from, the
// changes the bench makes to that world, and the scripted agent that plays
// it. The agent reads every result and decides its next arguments from it,
// as a model-driven agent would; run in a changed world, the same script
// is the bench's oracle for what a correct replay must send.
//
// A workflow is an object:
//
//   name        the recording's name (also the skill's)
//   server      "memory", "filesystem", "everything", "sqlite" or "git"
//               (see world.mjs)
//   needs       the flag a truthful skill of it needs: "--yes" when a
//               step deletes or overwrites what cannot be had back,
//               "--allow-writes" when it only writes, "none" (optional;
//               the bench counts a skill that needs less as an effect
//               milder than its calls)
//   rerunnable  whether a person would call a second run on the world the
//               first one left correct; rerunWhy says why
//   seed(w)     builds the starting world with the helpers in world.mjs
//   scenarios   changes to the seed: {id, kind: "irrelevant"|"relevant",
//               what, drift(w)}; drift runs after seed
//   play(a)     the agent: a.world is the world folder, a.note(text) and
//               await a.call(tool, args) talk to the server, a.giveUp(why)
//               stops the way an agent stops when the world is not what it
//               expected
//
// Every workflow gets two STABLE replays and a RERUN from the harness; the
// scenarios here are the drifts. Adding a workflow is adding an object to
// the list at the bottom.

import path from "node:path";

// ---------------------------------------------------------------- memory

const onboardCustomer = {
  name: "memory-onboard-customer",
  server: "memory",
  // Judged as memory-oncall-link is: the server skips entities, relations
  // and observations that already exist, so a second run leaves the graph
  // as the first left it and the customer is onboarded. (A first version
  // of the bench judged this workflow not re-runnable while judging the
  // same mechanism in memory-oncall-link re-runnable.)
  rerunnable: true,
  rerunWhy: "Acme Corp and Dana Whitfield exist after the first run; server-memory skips what already exists, so the graph ends the same",
  seed(w) {
    w.memory([
      w.entity("Internal Wiki", "tool", ["Lives at wiki.example.internal"]),
      w.entity("Priya Raman", "person", ["Account executive"]),
    ]);
  },
  scenarios: [
    {
      id: "unrelated-entity", kind: "irrelevant",
      what: "an unrelated project entity is added to the graph",
      drift(w) { w.addEntity(w.entity("Apollo", "project", ["Migration to the new billing stack"])); },
    },
    {
      id: "decoy-person-first", kind: "irrelevant",
      what: "a person whose notes mention customers is first in the graph, so the search lists them before Acme; the customer is still Acme",
      drift(w) { w.addEntity(w.entity("Leo Brandt", "person", ["Runs the customer advisory board"]), { first: true }); },
    },
    {
      id: "other-customer-first", kind: "relevant",
      what: "another customer, Zenith Labs, is already in the graph and the search finds it first; the agent opens Zenith Labs",
      drift(w) { w.addEntity(w.entity("Zenith Labs", "customer", ["Pilot for the sensor dashboard"]), { first: true }); },
    },
    {
      id: "acme-is-prospect", kind: "relevant",
      what: "Acme Corp already exists as a prospect, so it is not created and the search finds no customer; the agent stops before opening one",
      drift(w) { w.addEntity(w.entity("Acme Corp", "prospect", ["Trial started in May"])); },
    },
    {
      id: "acme-exists-other-notes", kind: "relevant",
      what: "Acme Corp already exists as a customer with other notes, so the create writes nothing (the server skips a name it has) and the notes the agent meant to record are not there; the agent stops before opening it",
      drift(w) { w.addEntity(w.entity("Acme Corp", "customer", ["Pilot ended in 2025"])); },
    },
  ],
  async play(a) {
    a.note("Create the customer Acme Corp and its contact Dana Whitfield");
    await a.call("create_entities", {
      entities: [
        { name: "Acme Corp", entityType: "customer", observations: ["Industrial sensors maker", "Based in Rotterdam"] },
        { name: "Dana Whitfield", entityType: "person", observations: ["Head of procurement at Acme Corp"] },
      ],
    });
    a.note("Link Dana to Acme");
    await a.call("create_relations", { relations: [{ from: "Dana Whitfield", to: "Acme Corp", relationType: "works at" }] });
    a.note("Record the renewal on Acme");
    await a.call("add_observations", { observations: [{ entityName: "Acme Corp", contents: ["Signed the 2026 renewal"] }] });
    a.note("Find the customers in memory");
    const found = await a.call("search_nodes", { query: "customer" });
    const customer = (found.structured?.entities ?? []).find((e) => e.entityType === "customer");
    if (!customer) a.giveUp("the search found no customer");
    const acme = (found.structured?.entities ?? []).find((e) => e.name === "Acme Corp");
    if (acme && !acme.observations.includes("Industrial sensors maker")) {
      a.giveUp("Acme Corp was already in memory with other notes: the create did not write ours");
    }
    a.note("Open the customer the search found");
    await a.call("open_nodes", { names: [customer.name] });
  },
};

const renewalFollowup = {
  name: "memory-renewal-followup",
  server: "memory",
  rerunnable: true,
  rerunWhy: "adding an observation the customer already has is a no-op on this server; the graph ends the same",
  seed(w) {
    w.memory([
      w.entity("Initech", "customer", ["Renewal signed 2026-02-01", "Account manager: Tom Becker"]),
      w.entity("Globex", "customer", ["Renewal due 2026-11-30", "Account manager: Priya Raman"]),
      w.entity("Priya Raman", "person", ["Account executive"]),
      w.entity("Tom Becker", "person", ["Account executive"]),
    ], [w.relation("Priya Raman", "Globex", "manages"), w.relation("Tom Becker", "Initech", "manages")]);
  },
  scenarios: [
    {
      id: "unrelated-customer", kind: "irrelevant",
      what: "a customer without a renewal due is added",
      drift(w) { w.addEntity(w.entity("Hooli", "customer", ["Contract runs to 2028"])); },
    },
    {
      id: "renewal-moved", kind: "relevant",
      what: "Globex renewed and Initech's renewal is now due; the agent annotates Initech for Tom Becker",
      drift(w) {
        w.editEntity("Globex", (e) => { e.observations[0] = "Renewal signed 2026-06-01"; });
        w.editEntity("Initech", (e) => { e.observations[0] = "Renewal due 2026-09-15"; });
      },
    },
    {
      id: "manager-changed", kind: "relevant",
      what: "Globex's account manager is now Omar Haddad; the note must name him",
      drift(w) { w.editEntity("Globex", (e) => { e.observations[1] = "Account manager: Omar Haddad"; }); },
    },
  ],
  async play(a) {
    a.note("Find the customer whose renewal is due");
    const found = await a.call("search_nodes", { query: "renewal due" });
    const customer = (found.structured?.entities ?? []).find((e) => e.entityType === "customer");
    if (!customer) a.giveUp("no customer has a renewal due");
    a.note("Open it to see who manages the account");
    const opened = await a.call("open_nodes", { names: [customer.name] });
    const entity = (opened.structured?.entities ?? []).find((e) => e.name === customer.name);
    const manager = entity?.observations.map((o) => /^Account manager: (.+)$/.exec(o)?.[1]).find(Boolean);
    if (!manager) a.giveUp(`${customer.name} has no account manager`);
    a.note("Note that the renewal call is booked with the account manager");
    await a.call("add_observations", { observations: [{ entityName: customer.name, contents: [`Renewal call booked with ${manager}`] }] });
  },
};

const oncallLink = {
  name: "memory-oncall-link",
  server: "memory",
  rerunnable: true,
  rerunWhy: "the relation exists after the first run; creating it again changes nothing and the graph ends the same",
  seed(w) {
    w.memory([
      w.entity("Search Team", "team", ["Owns site search"]),
      w.entity("Payments Team", "team", ["Owns the checkout and refunds services"]),
      w.entity("Mei Lin", "person", ["Engineer on the payments team"]),
      w.entity("Sam Ortiz", "person", ["Engineer on the payments team", "On call this week"]),
    ], [w.relation("Mei Lin", "Payments Team", "member of"), w.relation("Sam Ortiz", "Payments Team", "member of")]);
  },
  scenarios: [
    {
      id: "unrelated-person", kind: "irrelevant",
      what: "a designer who is not on call joins the graph",
      drift(w) { w.addEntity(w.entity("Ava Stone", "person", ["Designer on the search team"])); },
    },
    {
      id: "rotation", kind: "relevant",
      what: "the rotation moved: Mei Lin is on call, not Sam Ortiz",
      drift(w) {
        w.editEntity("Sam Ortiz", (e) => { e.observations.pop(); });
        w.editEntity("Mei Lin", (e) => { e.observations.push("On call this week"); });
      },
    },
    {
      id: "team-renamed", kind: "relevant",
      what: "the team that owns checkout is now called Payments Platform",
      drift(w) { w.renameEntity("Payments Team", "Payments Platform"); },
    },
  ],
  async play(a) {
    a.note("Read the whole graph to find the checkout team and who is on call");
    const graph = await a.call("read_graph", {});
    const entities = graph.structured?.entities ?? [];
    const team = entities.find((e) => e.entityType === "team" && e.observations.some((o) => o.includes("checkout")));
    const person = entities.find((e) => e.entityType === "person" && e.observations.includes("On call this week"));
    if (!team || !person) a.giveUp("no checkout team or nobody on call");
    a.note("Link the on-call engineer to the team");
    await a.call("create_relations", { relations: [{ from: person.name, to: team.name, relationType: "is on call for" }] });
    a.note("Open the on-call engineer to check the link");
    await a.call("open_nodes", { names: [person.name] });
  },
};

// ------------------------------------------------------------ filesystem

const summarizeNotes = {
  name: "fs-summarize-notes",
  server: "filesystem",
  rerunnable: true,
  rerunWhy: "it reads the same notes and overwrites out/summary.txt with the same text",
  seed(w) {
    w.file("notes/README.md", "Meeting notes live here, one file per meeting.\n");
    w.file("notes/meeting-2026-03-02.txt", "Weekly sync: checkout latency\n- p95 down to 180 ms\n- refunds backlog cleared\n- next: load test on Friday\n");
    w.dir("out");
  },
  scenarios: [
    {
      id: "unrelated-file", kind: "irrelevant",
      what: "an agenda draft (not meeting notes) appears in notes/",
      drift(w) { w.file("notes/agenda-draft.md", "1. Hiring\n2. Budget\n"); },
    },
    {
      id: "notes-renamed", kind: "relevant",
      what: "the latest notes are meeting-2026-03-09.txt now (the old file is gone)",
      drift(w) { w.rename("notes/meeting-2026-03-02.txt", "notes/meeting-2026-03-09.txt"); },
    },
    {
      id: "notes-rewritten", kind: "relevant",
      what: "the meeting notes have a new title and another line",
      drift(w) { w.file("notes/meeting-2026-03-02.txt", "Weekly sync: refunds incident\n- 41 refunds stuck for 2 hours\n- root cause: expired API key\n- fix deployed\n- follow-up: alert on key expiry\n"); },
    },
  ],
  async play(a) {
    a.note("List the meeting notes");
    const listing = await a.call("list_directory", { path: path.join(a.world, "notes") });
    const names = listing.text.split("\n").map((l) => /^\[FILE\] (.+)$/.exec(l)?.[1]).filter(Boolean);
    const latest = names.filter((n) => /^meeting-.*\.txt$/.test(n)).sort().at(-1);
    if (!latest) a.giveUp("no meeting notes in the listing");
    a.note("Read the latest meeting notes");
    const notes = await a.call("read_text_file", { path: path.join(a.world, "notes", latest) });
    const lines = notes.text.split("\n").filter((l, i, all) => l !== "" || i < all.length - 1);
    a.note("Write a summary: the title line and the number of lines");
    const summary = path.join(a.world, "out", "summary.txt");
    await a.call("write_file", { path: summary, content: `${lines[0]}\n(${lines.length} lines, from ${latest})\n` });
    a.note("Check the summary was written");
    await a.call("get_file_info", { path: summary });
  },
};

const archiveReport = {
  name: "fs-archive-report",
  server: "filesystem",
  rerunnable: false,
  rerunWhy: "the report was moved by the first run; the inbox has nothing left to archive",
  seed(w) {
    w.file("inbox/report-2026-02.csv", "month,revenue\n2026-02,18250\n");
    w.file("inbox/notes.txt", "Ask finance about the March numbers.\n");
    w.dir("archive");
  },
  scenarios: [
    {
      id: "unrelated-files", kind: "irrelevant",
      what: "a scanned letter lands in the inbox and a README at the top",
      drift(w) { w.file("inbox/scan-0042.pdf", "%PDF-1.4 (not a report)\n"); w.file("README.md", "Shared drive.\n"); },
    },
    {
      id: "report-renamed", kind: "relevant",
      what: "the report in the inbox is report-2026-03.csv",
      drift(w) { w.rename("inbox/report-2026-02.csv", "inbox/report-2026-03.csv"); },
    },
    {
      id: "newer-report", kind: "relevant",
      what: "a newer report-2026-03.csv sits beside the February one; the agent archives the newest",
      drift(w) { w.file("inbox/report-2026-03.csv", "month,revenue\n2026-03,19410\n"); },
    },
  ],
  async play(a) {
    a.note("Find the monthly report in the inbox");
    const found = await a.call("search_files", { path: path.join(a.world, "inbox"), pattern: "report-*.csv" });
    const report = found.text.split("\n").filter((l) => l.endsWith(".csv")).sort().at(-1);
    if (!report) a.giveUp("no report in the inbox");
    a.note("Move it to the archive");
    await a.call("move_file", { source: report, destination: path.join(a.world, "archive", path.basename(report)) });
    a.note("List the archive to confirm");
    const listing = await a.call("list_directory", { path: path.join(a.world, "archive") });
    if (!listing.text.includes(path.basename(report))) a.giveUp("the report is not in the archive");
  },
};

const configVersion = {
  name: "fs-config-version",
  server: "filesystem",
  rerunnable: true,
  rerunWhy: "it overwrites VERSION and banner.txt with the same text",
  seed(w) {
    w.file("app/config.json", JSON.stringify({
      name: "checkout-service",
      release: { version: "4.12.0", channel: "stable" },
      logLevel: "info",
      port: 8080,
    }, null, 2) + "\n");
  },
  scenarios: [
    {
      id: "log-level", kind: "irrelevant",
      what: "an unrelated key (logLevel) changes in the config",
      drift(w) { w.editJSON("app/config.json", (c) => { c.logLevel = "debug"; }); },
    },
    {
      id: "version-bumped", kind: "relevant",
      what: "the release version is 4.13.1",
      drift(w) { w.editJSON("app/config.json", (c) => { c.release.version = "4.13.1"; }); },
    },
    {
      id: "version-field-renamed", kind: "relevant",
      what: "release.version was renamed release.tag; the agent finds no version and stops",
      drift(w) { w.editJSON("app/config.json", (c) => { c.release = { tag: c.release.version, channel: c.release.channel }; }); },
    },
    {
      id: "channel-changed", kind: "relevant",
      what: "the release channel is beta, which the banner names",
      drift(w) { w.editJSON("app/config.json", (c) => { c.release.channel = "beta"; }); },
    },
  ],
  async play(a) {
    a.note("Read the service configuration");
    const file = await a.call("read_text_file", { path: path.join(a.world, "app", "config.json") });
    const config = JSON.parse(file.text);
    const version = config.release?.version;
    if (typeof version !== "string") a.giveUp("the config has no release.version");
    a.note("Write the release version to VERSION");
    await a.call("write_file", { path: path.join(a.world, "app", "VERSION"), content: version });
    a.note("Write the release banner");
    await a.call("write_file", { path: path.join(a.world, "app", "banner.txt"), content: `${config.name} ${version} (${config.release.channel})\n` });
    a.note("Read VERSION back to check it");
    const back = await a.call("read_text_file", { path: path.join(a.world, "app", "VERSION") });
    if (back.text !== version) a.giveUp("VERSION does not hold the version");
  },
};

// ------------------------------------------------------------ everything

// server-everything keeps no state; its world is the environment it runs
// in, which get-env reports. The harness starts it with exactly the
// variables of w.env and nothing else.

const weatherLoad = {
  name: "everything-weather-load",
  server: "everything",
  rerunnable: true,
  rerunWhy: "nothing is stored; reading the weather and adding again gives the same answer",
  seed(w) { w.env({ SITE_CITY: "Chicago", SITE_BASELINE_KW: "1200" }); },
  scenarios: [
    {
      id: "unrelated-variable", kind: "irrelevant",
      what: "an unrelated variable (SITE_TIMEZONE) is set",
      drift(w) { w.setEnv("SITE_TIMEZONE", "America/Chicago"); },
    },
    {
      id: "city-changed", kind: "relevant",
      what: "the site is in Los Angeles: another temperature, another sum",
      drift(w) { w.setEnv("SITE_CITY", "Los Angeles"); },
    },
    {
      id: "baseline-changed", kind: "relevant",
      what: "the baseline load is 1350",
      drift(w) { w.setEnv("SITE_BASELINE_KW", "1350"); },
    },
    {
      id: "city-variable-renamed", kind: "relevant",
      what: "SITE_CITY was renamed SITE_LOCATION; the agent finds no city and stops",
      drift(w) { w.renameEnv("SITE_CITY", "SITE_LOCATION"); },
    },
  ],
  async play(a) {
    a.note("Read the site settings from the server environment");
    const env = (await a.call("get-env", {})).json ?? {};
    const city = env.SITE_CITY;
    const baseline = Number(env.SITE_BASELINE_KW);
    if (!city || !Number.isFinite(baseline)) a.giveUp("the site settings are incomplete");
    a.note("Get the weather for the site's city");
    const weather = await a.call("get-structured-content", { location: city });
    const temperature = weather.structured?.temperature;
    if (typeof temperature !== "number") a.giveUp("the weather has no temperature");
    a.note("Add the temperature to the baseline load");
    const sum = await a.call("get-sum", { a: baseline, b: temperature });
    const total = /is (-?[\d.]+)\.$/.exec(sum.text)?.[1];
    if (!total) a.giveUp("the sum is not in the answer");
    a.note("Report the adjusted load");
    await a.call("echo", { message: `Adjusted load for ${city}: ${total} kW` });
  },
};

const attachmentPick = {
  name: "everything-attachment-pick",
  server: "everything",
  rerunnable: true,
  rerunWhy: "nothing is stored; listing and fetching again gives the same answer",
  seed(w) { w.env({ TICKET_ATTACHMENTS: "4" }); },
  scenarios: [
    {
      id: "unrelated-variable", kind: "irrelevant",
      what: "an unrelated variable (TICKET_QUEUE) is set",
      drift(w) { w.setEnv("TICKET_QUEUE", "billing"); },
    },
    {
      id: "more-attachments", kind: "relevant",
      what: "the ticket has 6 attachments, so the last text one is resource 6",
      drift(w) { w.setEnv("TICKET_ATTACHMENTS", "6"); },
    },
    {
      id: "one-attachment", kind: "relevant",
      what: "the ticket has 1 attachment, a blob; there is no text attachment and the agent stops",
      drift(w) { w.setEnv("TICKET_ATTACHMENTS", "1"); },
    },
  ],
  async play(a) {
    a.note("Read how many attachments the ticket has");
    const env = (await a.call("get-env", {})).json ?? {};
    const count = Number(env.TICKET_ATTACHMENTS);
    if (!Number.isInteger(count) || count < 1) a.giveUp("no attachment count");
    a.note("List the ticket's attachment links");
    const links = await a.call("get-resource-links", { count });
    const text = links.content.filter((c) => c.type === "resource_link" && c.mimeType === "text/plain").at(-1);
    if (!text) a.giveUp("no text attachment");
    const id = Number(text.uri.split("/").at(-1));
    a.note("Fetch the last text attachment");
    const ref = await a.call("get-resource-reference", { resourceType: "Text", resourceId: id });
    if (!ref.content.some((c) => c.type === "resource" && c.resource.uri === text.uri)) a.giveUp("fetched the wrong attachment");
    a.note("Fetch the logo to attach");
    await a.call("get-tiny-image", {});
    a.note("Confirm what was attached");
    await a.call("echo", { message: `Attached Text Resource ${id} and the logo` });
  },
};

// ---------------------------------------------------------------- sqlite
//
// @executeautomation/database-server on the world's shop.db. read_query
// answers a JSON array of rows as text, export_query a CSV text, and
// write_query {"affected_rows": n}. The agent writes its values into the
// SQL it sends, as an agent does.

const sqlRows = (r) => (Array.isArray(r.json) ? r.json : []);
const quote = (s) => `'${String(s).replaceAll("'", "''")}'`;

const products = () => [
  { sku: "BLT-204", name: "Hex bolt M8", stock: 140, margin_pct: 31 },
  { sku: "NUT-118", name: "Lock nut M8", stock: 12, margin_pct: 22 },
  { sku: "WSH-330", name: "Washer 8 mm", stock: 57, margin_pct: 9 },
  { sku: "SCR-512", name: "Wood screw 4x40", stock: 83, margin_pct: 27 },
];
const productSchema = "sku TEXT PRIMARY KEY, name TEXT NOT NULL, stock INTEGER NOT NULL, margin_pct INTEGER NOT NULL, flagged INTEGER NOT NULL DEFAULT 0";

const restockLowest = {
  name: "sqlite-restock-lowest",
  server: "sqlite",
  needs: "--allow-writes",
  rerunnable: false,
  rerunWhy: "the first run left an open purchase order for the product; the agent finds it and stops",
  seed(w) {
    w.table("products", productSchema, products());
    w.table("purchase_orders", "id INTEGER PRIMARY KEY, sku TEXT NOT NULL, qty INTEGER NOT NULL, status TEXT NOT NULL", [
      { id: 1, sku: "SCR-512", qty: 40, status: "received" },
    ]);
  },
  scenarios: [
    {
      id: "well-stocked-first", kind: "irrelevant",
      what: "a well-stocked product (AAA-001, 900 in stock) is listed first, so every row moves down one",
      drift(w) { w.rows("products").unshift({ sku: "AAA-001", name: "Anchor plug 6 mm", stock: 900, margin_pct: 40 }); },
    },
    {
      id: "rows-reversed", kind: "irrelevant",
      what: "the products are listed in reverse order; the lowest stock is still NUT-118",
      drift(w) { w.rows("products").reverse(); },
    },
    {
      id: "other-open-order", kind: "irrelevant",
      what: "an open purchase order for another product (BLT-204) exists",
      drift(w) { w.rows("purchase_orders").push({ id: 2, sku: "BLT-204", qty: 60, status: "open" }); },
    },
    {
      id: "other-lowest", kind: "relevant",
      what: "WSH-330 is down to 4, below NUT-118; the agent orders 96 of WSH-330",
      drift(w) { w.row("products", (p) => p.sku === "WSH-330").stock = 4; },
    },
    {
      id: "new-lowest-product", kind: "relevant",
      what: "a new product PIN-077 with 3 in stock is listed last; the agent orders 97 of it",
      drift(w) { w.rows("products").push({ sku: "PIN-077", name: "Split pin 2 mm", stock: 3, margin_pct: 35 }); },
    },
    {
      id: "stock-changed", kind: "relevant",
      what: "NUT-118 has 20 in stock, still the lowest; the agent orders 80, not 88",
      drift(w) { w.row("products", (p) => p.sku === "NUT-118").stock = 20; },
    },
    {
      id: "order-already-open", kind: "relevant",
      what: "an open purchase order for NUT-118 exists already; the agent stops before ordering",
      drift(w) { w.rows("purchase_orders").push({ id: 2, sku: "NUT-118", qty: 88, status: "open" }); },
    },
  ],
  async play(a) {
    a.note("List the products with their stock");
    const listed = sqlRows(await a.call("read_query", { query: "SELECT sku, name, stock FROM products" }));
    if (listed.length === 0) a.giveUp("no products");
    const lowest = listed.reduce((lo, p) => (p.stock < lo.stock ? p : lo));
    a.note("Check that no purchase order is open for the product with the lowest stock");
    const open = sqlRows(await a.call("read_query", { query: "SELECT id, sku, qty FROM purchase_orders WHERE status = 'open'" }));
    if (open.some((o) => o.sku === lowest.sku)) a.giveUp(`an order for ${lowest.sku} is open already`);
    a.note("Order enough to bring it back to 100");
    await a.call("write_query", { query: `INSERT INTO purchase_orders (sku, qty, status) VALUES (${quote(lowest.sku)}, ${100 - lowest.stock}, 'open')` });
    a.note("Read the open orders back");
    const after = sqlRows(await a.call("read_query", { query: "SELECT id, sku, qty FROM purchase_orders WHERE status = 'open'" }));
    if (!after.some((o) => o.sku === lowest.sku)) a.giveUp("the order is not there");
  },
};

const overdueReminder = {
  name: "sqlite-overdue-reminder",
  server: "sqlite",
  needs: "--allow-writes",
  rerunnable: false,
  rerunWhy: "the first run recorded a reminder for Globex; the agent finds it and stops",
  seed(w) {
    w.table("invoices", "number TEXT PRIMARY KEY, customer TEXT NOT NULL, amount INTEGER NOT NULL, status TEXT NOT NULL", [
      { number: "INV-1001", customer: "Globex", amount: 1200, status: "paid" },
      { number: "INV-1002", customer: "Initech", amount: 800, status: "overdue" },
      { number: "INV-1003", customer: "Globex", amount: 450, status: "overdue" },
      { number: "INV-1004", customer: "Globex", amount: 2300, status: "open" },
      { number: "INV-1005", customer: "Globex", amount: 975, status: "overdue" },
    ]);
    w.table("reminders", "id INTEGER PRIMARY KEY, customer TEXT NOT NULL, invoices TEXT NOT NULL, invoice_count INTEGER NOT NULL, total INTEGER NOT NULL", []);
  },
  scenarios: [
    {
      id: "paid-invoice-added", kind: "irrelevant",
      what: "a paid Globex invoice INV-1006 is added",
      drift(w) { w.rows("invoices").push({ number: "INV-1006", customer: "Globex", amount: 640, status: "paid" }); },
    },
    {
      id: "other-customer-overdue", kind: "irrelevant",
      what: "an overdue invoice of another customer (Initech) is added",
      drift(w) { w.rows("invoices").push({ number: "INV-1006", customer: "Initech", amount: 310, status: "overdue" }); },
    },
    {
      id: "rows-reversed", kind: "irrelevant",
      what: "the invoices are listed in reverse order; the agent sorts the numbers it sends",
      drift(w) { w.rows("invoices").reverse(); },
    },
    {
      id: "one-more-overdue", kind: "relevant",
      what: "Globex's INV-1006 (610) is overdue too: three invoices, 2035 in total",
      drift(w) { w.rows("invoices").push({ number: "INV-1006", customer: "Globex", amount: 610, status: "overdue" }); },
    },
    {
      id: "one-paid", kind: "relevant",
      what: "INV-1003 was paid: one overdue invoice, 975",
      drift(w) { w.row("invoices", (r) => r.number === "INV-1003").status = "paid"; },
    },
    {
      id: "amount-corrected", kind: "relevant",
      what: "INV-1005 was corrected to 1075: the same invoices, 1525 in total",
      drift(w) { w.row("invoices", (r) => r.number === "INV-1005").amount = 1075; },
    },
    {
      id: "none-overdue", kind: "relevant",
      what: "Globex paid everything; nothing is overdue and the agent stops",
      drift(w) { for (const r of w.rows("invoices")) if (r.customer === "Globex" && r.status === "overdue") r.status = "paid"; },
    },
    {
      id: "already-reminded", kind: "relevant",
      what: "Globex has a reminder already; the agent stops before recording another",
      drift(w) { w.rows("reminders").push({ id: 1, customer: "Globex", invoices: "INV-1003", invoice_count: 1, total: 450 }); },
    },
  ],
  async play(a) {
    a.note("List Globex's invoices");
    const invoices = sqlRows(await a.call("read_query", { query: "SELECT number, amount, status FROM invoices WHERE customer = 'Globex'" }));
    const overdue = invoices.filter((i) => i.status === "overdue");
    if (overdue.length === 0) a.giveUp("nothing is overdue");
    a.note("Check that Globex has not been reminded yet");
    const sent = sqlRows(await a.call("read_query", { query: "SELECT id, invoices FROM reminders WHERE customer = 'Globex'" }));
    if (sent.length > 0) a.giveUp("Globex was reminded already");
    const numbers = overdue.map((i) => i.number).sort().join(",");
    const total = overdue.reduce((s, i) => s + i.amount, 0);
    a.note("Record one reminder for the overdue invoices: their numbers, how many, and the total");
    await a.call("write_query", {
      query: `INSERT INTO reminders (customer, invoices, invoice_count, total) VALUES ('Globex', ${quote(numbers)}, ${overdue.length}, ${total})`,
    });
    a.note("Read the reminder back");
    await a.call("read_query", { query: "SELECT invoices, invoice_count, total FROM reminders WHERE customer = 'Globex'" });
  },
};

const csvLowestMargin = {
  name: "sqlite-csv-lowest-margin",
  server: "sqlite",
  needs: "--allow-writes",
  rerunnable: true,
  rerunWhy: "flagging a product that is flagged already changes nothing",
  seed(w) { w.table("products", productSchema, products()); },
  scenarios: [
    {
      id: "rows-reversed", kind: "irrelevant",
      what: "the CSV lists the products in reverse order; the lowest margin is still WSH-330",
      drift(w) { w.rows("products").reverse(); },
    },
    {
      id: "high-margin-first", kind: "irrelevant",
      what: "a product with a 64% margin is listed first",
      drift(w) { w.rows("products").unshift({ sku: "AAA-001", name: "Anchor plug 6 mm", stock: 900, margin_pct: 64 }); },
    },
    {
      id: "other-lowest", kind: "relevant",
      what: "SCR-512's margin fell to 5%, below WSH-330; the agent flags SCR-512",
      drift(w) { w.row("products", (p) => p.sku === "SCR-512").margin_pct = 5; },
    },
    {
      id: "new-lowest-product", kind: "relevant",
      what: "a new product PIN-077 with a 3% margin is listed last; the agent flags it",
      drift(w) { w.rows("products").push({ sku: "PIN-077", name: "Split pin 2 mm", stock: 3, margin_pct: 3 }); },
    },
  ],
  async play(a) {
    a.note("Export the products and their margins as CSV");
    const csv = await a.call("export_query", { query: "SELECT sku, name, margin_pct FROM products", format: "csv" });
    const rows = csv.text.split("\n").slice(1)
      .map((l) => /^"([^"]*)","([^"]*)",(-?\d+)$/.exec(l))
      .filter(Boolean)
      .map((m) => ({ sku: m[1], name: m[2], margin: Number(m[3]) }));
    if (rows.length === 0) a.giveUp("the export has no rows");
    const lowest = rows.reduce((lo, r) => (r.margin < lo.margin ? r : lo));
    a.note("Flag the product with the lowest margin for a price review");
    await a.call("write_query", { query: `UPDATE products SET flagged = 1 WHERE sku = ${quote(lowest.sku)}` });
    a.note("Export the flagged products to check");
    const flagged = await a.call("export_query", { query: "SELECT sku, name FROM products WHERE flagged = 1", format: "csv" });
    if (!flagged.text.includes(`"${lowest.sku}"`)) a.giveUp("the product is not flagged");
  },
};

const customerUpgrade = {
  name: "sqlite-customer-upgrade",
  server: "sqlite",
  needs: "--allow-writes",
  rerunnable: true,
  rerunWhy: "setting the tier it already has changes nothing",
  seed(w) {
    w.table("customers", "id INTEGER PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL, tier TEXT NOT NULL", [
      { id: 10, name: "Globex", status: "active", tier: "silver" },
      { id: 11, name: "Initech", status: "active", tier: "silver" },
      { id: 12, name: "Acme Corp", status: "active", tier: "silver" },
      { id: 13, name: "Acme Labs", status: "archived", tier: "bronze" },
    ]);
  },
  scenarios: [
    {
      id: "archived-older-first", kind: "irrelevant",
      what: "an older, archived Acme Trading (id 5) is found first",
      drift(w) { w.rows("customers").push({ id: 5, name: "Acme Trading", status: "archived", tier: "bronze" }); },
    },
    {
      id: "unrelated-customer", kind: "irrelevant",
      what: "an unrelated active customer (Hooli) is added",
      drift(w) { w.rows("customers").push({ id: 14, name: "Hooli", status: "active", tier: "silver" }); },
    },
    {
      id: "ids-reassigned", kind: "relevant",
      what: "the customers were renumbered from 110; Acme Corp is 112",
      drift(w) { for (const c of w.rows("customers")) c.id += 100; },
    },
    {
      id: "other-acme-active", kind: "relevant",
      what: "Acme Corp is archived and Acme Robotics (id 15) is the active Acme; the agent upgrades 15",
      drift(w) {
        w.row("customers", (c) => c.name === "Acme Corp").status = "archived";
        w.rows("customers").push({ id: 15, name: "Acme Robotics", status: "active", tier: "silver" });
      },
    },
    {
      id: "two-active", kind: "relevant",
      what: "Acme Labs is active again: two active matches, and the agent stops rather than guess",
      drift(w) { w.row("customers", (c) => c.name === "Acme Labs").status = "active"; },
    },
    {
      id: "none-active", kind: "relevant",
      what: "Acme Corp is archived: no active match, and the agent stops",
      drift(w) { w.row("customers", (c) => c.name === "Acme Corp").status = "archived"; },
    },
  ],
  async play(a) {
    a.note("Find the active customer whose name has Acme in it");
    const found = sqlRows(await a.call("read_query", { query: "SELECT id, name, status FROM customers WHERE name LIKE '%Acme%'" }));
    const active = found.filter((c) => c.status === "active");
    if (active.length !== 1) a.giveUp(`${active.length} active customers match Acme; expected exactly one`);
    a.note("Upgrade it to the gold tier");
    await a.call("write_query", { query: `UPDATE customers SET tier = 'gold' WHERE id = ${active[0].id}` });
    a.note("Check its tier");
    const back = sqlRows(await a.call("read_query", { query: `SELECT id, name, tier FROM customers WHERE id = ${active[0].id}` }));
    if (back[0]?.tier !== "gold") a.giveUp("the tier did not change");
  },
};

const reportLines = (file, rows) => rows.map(([region, revenue]) => ({ file, region, revenue }));

const latestReport = {
  name: "sqlite-latest-report",
  server: "sqlite",
  needs: "--allow-writes",
  rerunnable: true,
  rerunWhy: "INSERT OR REPLACE writes the same summary row again",
  seed(w) {
    w.table("reports", "file TEXT PRIMARY KEY, period TEXT NOT NULL", [
      { file: "report-2026-01.csv", period: "2026-01" },
      { file: "report-2026-02.csv", period: "2026-02" },
      { file: "report-2026-03.csv", period: "2026-03" },
    ]);
    w.table("report_lines", "file TEXT NOT NULL, region TEXT NOT NULL, revenue INTEGER NOT NULL", [
      ...reportLines("report-2026-01.csv", [["north", 15100], ["south", 9800]]),
      ...reportLines("report-2026-02.csv", [["north", 16250], ["south", 10400], ["west", 7020]]),
      ...reportLines("report-2026-03.csv", [["north", 17930], ["south", 11210], ["west", 8090]]),
    ]);
    w.table("summaries", "file TEXT PRIMARY KEY, regions INTEGER NOT NULL, total INTEGER NOT NULL", []);
  },
  scenarios: [
    {
      id: "older-report-above", kind: "irrelevant",
      what: "an older report (report-2025-12.csv) is listed above the others; the newest is still March",
      drift(w) {
        w.rows("reports").unshift({ file: "report-2025-12.csv", period: "2025-12" });
        w.rows("report_lines").push(...reportLines("report-2025-12.csv", [["north", 14800]]));
      },
    },
    {
      id: "rows-reversed", kind: "irrelevant",
      what: "the listing is in reverse order, newest first",
      drift(w) { w.rows("reports").reverse(); },
    },
    {
      id: "older-lines-changed", kind: "irrelevant",
      what: "January's north revenue was corrected; March is untouched",
      drift(w) { w.row("report_lines", (l) => l.file === "report-2026-01.csv" && l.region === "north").revenue = 15350; },
    },
    {
      id: "newer-report", kind: "relevant",
      what: "April's report is listed last; the agent summarises April",
      drift(w) {
        w.rows("reports").push({ file: "report-2026-04.csv", period: "2026-04" });
        w.rows("report_lines").push(...reportLines("report-2026-04.csv", [["north", 18400], ["south", 11900]]));
      },
    },
    {
      id: "newer-report-above", kind: "relevant",
      what: "April's report is listed first; the agent summarises April",
      drift(w) {
        w.rows("reports").unshift({ file: "report-2026-04.csv", period: "2026-04" });
        w.rows("report_lines").push(...reportLines("report-2026-04.csv", [["north", 18400], ["south", 11900]]));
      },
    },
    {
      id: "region-added", kind: "relevant",
      what: "March has one more region (east): four regions, another total",
      drift(w) { w.rows("report_lines").push(...reportLines("report-2026-03.csv", [["east", 4410]])); },
    },
  ],
  async play(a) {
    a.note("List the reports as CSV");
    const listing = await a.call("export_query", { query: "SELECT file, period FROM reports", format: "csv" });
    const reports = listing.text.split("\n").slice(1)
      .map((l) => /^"([^"]*)","([^"]*)"$/.exec(l))
      .filter(Boolean)
      .map((m) => ({ file: m[1], period: m[2] }));
    if (reports.length === 0) a.giveUp("no reports");
    const newest = reports.reduce((n, r) => (r.period > n.period ? r : n));
    a.note("Read the newest report's lines");
    const lines = sqlRows(await a.call("read_query", { query: `SELECT region, revenue FROM report_lines WHERE file = ${quote(newest.file)}` }));
    if (lines.length === 0) a.giveUp(`${newest.file} has no lines`);
    const total = lines.reduce((s, l) => s + l.revenue, 0);
    a.note("Write its summary: how many regions and the total revenue");
    await a.call("write_query", {
      query: `INSERT OR REPLACE INTO summaries (file, regions, total) VALUES (${quote(newest.file)}, ${lines.length}, ${total})`,
    });
    a.note("Read the summaries back");
    await a.call("read_query", { query: "SELECT file, regions, total FROM summaries" });
  },
};

// ------------------------------------------------------------------- git
//
// @cyanheads/git-mcp-server on the world's repo/. Its tools answer JSON
// (as text and as structured content); git_branch and git_tag are
// multi-mode tools whose mode argument chooses list, create or delete.

const repoPath = (a) => path.join(a.world, "repo");
const day = (d) => `2026-03-${String(d).padStart(2, "0")}T10:00:00Z`;
const commitsOf = (r) => r.structured?.commits ?? r.json?.commits ?? [];
const branchesOf = (r) => r.structured?.branches ?? r.json?.branches ?? [];
const tagsOf = (r) => r.structured?.tags ?? r.json?.tags ?? [];

const tagRelease = {
  name: "git-tag-release",
  server: "git",
  needs: "--allow-writes",
  rerunnable: false,
  rerunWhy: "the release is tagged after the first run; the agent finds the tag and stops",
  seed(w) {
    w.repo();
    w.commit("chore: initial import", day(1), { "README.md": "# shop\n" });
    w.commit("feat: search filters", day(2), { "search.txt": "filters\n" });
    w.commit("release: 2.3.0", day(3), { "VERSION": "2.3.0\n" });
    w.tag("v2.3.0");
    w.commit("fix: crash on empty cart", day(4), { "cart.txt": "empty cart\n" });
    w.commit("release: 2.4.0", day(5), { "VERSION": "2.4.0\n" });
    w.commit("docs: changelog wording", day(6), { "CHANGELOG.md": "2.4.0: fixes\n" });
  },
  scenarios: [
    {
      id: "newer-docs-commit", kind: "irrelevant",
      what: "one more commit that is not a release (chore: bump dependencies) sits on top",
      drift(w) { w.commit("chore: bump dependencies", day(7), { "deps.txt": "bumped\n" }); },
    },
    {
      id: "unrelated-tag", kind: "irrelevant",
      what: "an unrelated tag (nightly-0301) marks the first commit",
      drift(w) { w.tag("nightly-0301", w.rev("HEAD~5")); },
    },
    {
      id: "newer-release", kind: "relevant",
      what: "release: 2.5.0 was committed on top; the agent tags it v2.5.0",
      drift(w) { w.commit("release: 2.5.0", day(8), { "VERSION": "2.5.0\n" }); },
    },
    {
      id: "already-tagged", kind: "relevant",
      what: "v2.4.0 exists already; the agent stops before tagging",
      drift(w) { w.tag("v2.4.0", w.rev("HEAD~1")); },
    },
  ],
  async play(a) {
    a.note("Read the recent history");
    const log = await a.call("git_log", { path: repoPath(a), maxCount: 20, oneline: true });
    const release = commitsOf(log).find((c) => c.subject.startsWith("release: "));
    if (!release) a.giveUp("no release commit in the history");
    const tag = `v${release.subject.slice("release: ".length)}`;
    a.note("Check that the newest release is not tagged yet");
    const tags = await a.call("git_tag", { path: repoPath(a), mode: "list" });
    if (tagsOf(tags).some((t) => t.name === tag)) a.giveUp(`${tag} exists already`);
    a.note("Tag the release commit");
    await a.call("git_tag", { path: repoPath(a), mode: "create", tagName: tag, commit: release.hash, message: `Release ${tag.slice(1)}` });
    a.note("List the tags to confirm");
    const after = await a.call("git_tag", { path: repoPath(a), mode: "list" });
    if (!tagsOf(after).some((t) => t.name === tag)) a.giveUp("the tag is not there");
  },
};

const pruneMerged = {
  name: "git-prune-merged-branch",
  server: "git",
  needs: "--yes",
  rerunnable: false,
  rerunWhy: "the branch is gone after the first run; the agent finds no merged feature branch and stops",
  seed(w) {
    w.repo();
    w.commit("chore: initial import", day(1), { "README.md": "# shop\n" });
    w.commit("feat: login form", day(2), { "login.txt": "form\n" });
    w.branch("feature/login-form");
    w.commit("feat: checkout totals", day(3), { "totals.txt": "totals\n" });
    w.commitOn("feature/dark-mode", "feat: dark mode (wip)", day(4), { "theme.txt": "dark\n" });
  },
  scenarios: [
    {
      id: "unmerged-branch-added", kind: "irrelevant",
      what: "another unmerged branch (feature/csv-export) has work of its own",
      drift(w) { w.commitOn("feature/csv-export", "feat: csv export (wip)", day(5), { "export.txt": "csv\n" }); },
    },
    {
      id: "merged-bugfix-first", kind: "irrelevant",
      what: "a merged bugfix/typo branch is listed before the feature branch",
      drift(w) { w.branch("bugfix/typo", w.rev("HEAD~2")); },
    },
    {
      id: "other-branch-merged", kind: "relevant",
      what: "the merged feature branch is feature/signup-flow; the agent deletes that one",
      drift(w) { w.git("branch", "-m", "feature/login-form", "feature/signup-flow"); },
    },
    {
      id: "two-merged", kind: "relevant",
      what: "feature/search-v2 is merged too: two candidates, and the agent stops rather than guess",
      drift(w) { w.branch("feature/search-v2", w.rev("HEAD~1")); },
    },
    {
      id: "none-merged", kind: "relevant",
      what: "feature/login-form got a commit main does not have: nothing merged to delete, and the agent stops",
      drift(w) { w.commitOn("feature/login-form", "feat: login form validation", day(6), { "login.txt": "form\nvalidation\n" }); },
    },
  ],
  async play(a) {
    a.note("List the branches merged into main");
    const merged = await a.call("git_branch", { path: repoPath(a), mode: "list", merged: true });
    const features = branchesOf(merged).filter((b) => b.name.startsWith("feature/") && !b.current);
    if (features.length !== 1) a.giveUp(`${features.length} merged feature branches; expected exactly one`);
    a.note("Delete the merged feature branch");
    await a.call("git_branch", { path: repoPath(a), mode: "delete", branchName: features[0].name });
    a.note("List the branches left");
    const left = await a.call("git_branch", { path: repoPath(a), mode: "list" });
    if (branchesOf(left).some((b) => b.name === features[0].name)) a.giveUp("the branch is still there");
  },
};

const backportFix = {
  name: "git-backport-fix",
  server: "git",
  needs: "--allow-writes",
  rerunnable: false,
  rerunWhy: "the backport branch exists after the first run; the agent finds it and stops",
  seed(w) {
    w.repo();
    w.commit("chore: initial import", day(1), { "README.md": "# shop\n" });
    w.commit("feat: export to CSV", day(2), { "export.txt": "csv\n" });
    w.commit("fix: rounding in totals", day(3), { "totals.txt": "round half even\n" });
    w.commit("docs: release notes", day(4), { "NOTES.md": "rounding fixed\n" });
  },
  scenarios: [
    {
      id: "one-more-on-top", kind: "irrelevant",
      what: "one more commit (chore: bump version) sits on top, so the fix's hash moves down a place and the newest commit's parent is no longer the fix",
      drift(w) { w.commit("chore: bump version", day(5), { "VERSION": "1.0.1\n" }); },
    },
    {
      id: "unrelated-branch", kind: "irrelevant",
      what: "an unrelated branch (experiment/cache) exists",
      drift(w) { w.branch("experiment/cache", w.rev("HEAD~3")); },
    },
    {
      id: "newer-fix", kind: "relevant",
      what: "a newer fix (fix: timezone in reports) is on top; the agent backports that one",
      drift(w) { w.commit("fix: timezone in reports", day(5), { "reports.txt": "UTC\n" }); },
    },
    {
      id: "branch-exists", kind: "relevant",
      what: "the backport branch exists already; the agent stops before creating it",
      drift(w) { w.branch(`backport/${w.rev("HEAD~1").slice(0, 7)}`, w.rev("HEAD~1")); },
    },
  ],
  async play(a) {
    a.note("Read the history with each commit's parents");
    const log = await a.call("git_log", { path: repoPath(a), maxCount: 10 });
    const fix = commitsOf(log).find((c) => c.subject.startsWith("fix: "));
    if (!fix) a.giveUp("no fix in the history");
    a.note("Show the fix to check what it changed");
    await a.call("git_show", { path: repoPath(a), object: fix.hash, stat: true });
    const branch = `backport/${fix.shortHash}`;
    a.note("Check that no backport branch exists for it");
    const branches = await a.call("git_branch", { path: repoPath(a), mode: "list" });
    if (branchesOf(branches).some((b) => b.name === branch)) a.giveUp(`${branch} exists already`);
    a.note("Create the backport branch at the fix");
    await a.call("git_branch", { path: repoPath(a), mode: "create", branchName: branch, startPoint: fix.hash });
  },
};

const dropOldestRC = {
  name: "git-drop-oldest-rc",
  server: "git",
  needs: "--yes",
  rerunnable: false,
  rerunWhy: "a second run would delete the next release candidate; the agent keeps the last one and stops there",
  seed(w) {
    w.repo();
    w.commit("chore: initial import", day(1), { "README.md": "# shop\n" });
    w.commit("release: 2.9.0", day(2), { "VERSION": "2.9.0\n" });
    w.tag("v2.9.0");
    w.commit("feat: wishlists", day(3), { "wishlist.txt": "w\n" });
    w.tag("v3.0.0-rc.1");
    w.commit("fix: wishlist sharing", day(4), { "wishlist.txt": "w\nshare\n" });
    w.tag("v3.0.0-rc.2");
    w.commit("release: 3.0.0", day(5), { "VERSION": "3.0.0\n" });
    w.tag("v3.0.0");
  },
  scenarios: [
    {
      id: "newer-rc", kind: "irrelevant",
      what: "a newer release candidate v3.1.0-rc.1 is tagged on a new commit; the oldest is still v3.0.0-rc.1",
      drift(w) { w.commit("feat: gift cards", day(6), { "gift.txt": "g\n" }); w.tag("v3.1.0-rc.1"); },
    },
    {
      id: "unrelated-tag", kind: "irrelevant",
      what: "an unrelated tag (docs-snapshot) marks the first commit",
      drift(w) { w.tag("docs-snapshot", w.rev("HEAD~4")); },
    },
    {
      id: "older-rc-added", kind: "relevant",
      what: "an older release candidate v2.9.0-rc.1 marks the first commit; the agent deletes that one",
      drift(w) { w.tag("v2.9.0-rc.1", w.rev("HEAD~4")); },
    },
    {
      id: "one-rc-left", kind: "relevant",
      what: "v3.0.0-rc.1 was deleted already: one release candidate is left, and the agent keeps it",
      drift(w) { w.git("tag", "-d", "v3.0.0-rc.1"); },
    },
  ],
  async play(a) {
    a.note("List the tags");
    const tags = await a.call("git_tag", { path: repoPath(a), mode: "list" });
    const rcs = tagsOf(tags).filter((t) => /-rc\.\d+$/.test(t.name));
    if (rcs.length < 2) a.giveUp("keep the last release candidate");
    const oldest = rcs.reduce((o, t) => (t.timestamp < o.timestamp ? t : o));
    a.note("Delete the oldest release candidate");
    await a.call("git_tag", { path: repoPath(a), mode: "delete", tagName: oldest.name });
    a.note("List the tags left");
    const left = await a.call("git_tag", { path: repoPath(a), mode: "list" });
    if (tagsOf(left).some((t) => t.name === oldest.name)) a.giveUp("the tag is still there");
  },
};

export const workflows = [
  onboardCustomer,
  renewalFollowup,
  oncallLink,
  summarizeNotes,
  archiveReport,
  configVersion,
  weatherLoad,
  attachmentPick,
  restockLowest,
  overdueReminder,
  csvLowestMargin,
  customerUpgrade,
  latestReport,
  tagRelease,
  pruneMerged,
  backportFix,
  dropOldestRC,
];
