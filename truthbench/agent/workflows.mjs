// The truth bench's workflows: for each one, the world it starts from, the
// changes the bench makes to that world, and the scripted agent that plays
// it. The agent reads every result and decides its next arguments from it,
// as a model-driven agent would; run in a changed world, the same script
// is the bench's oracle for what a correct replay must send.
//
// A workflow is an object:
//
//   name        the recording's name (also the skill's)
//   server      "memory", "filesystem" or "everything" (see world.mjs)
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

export const workflows = [
  onboardCustomer,
  renewalFollowup,
  oncallLink,
  summarizeNotes,
  archiveReport,
  configVersion,
  weatherLoad,
  attachmentPick,
];
