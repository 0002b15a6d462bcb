package compile_test

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reelier/reelier/compile"
	"github.com/reelier/reelier/lang/ast"
	"github.com/reelier/reelier/lang/format"
	"github.com/reelier/reelier/replay"
	"github.com/reelier/reelier/tool"
	"github.com/reelier/reelier/tool/jsondata"
	"github.com/reelier/reelier/trace"
)

// drift is a world the recording did not see: the result the step that
// holds a selection gets there, and what the selection must give — the
// value the agent would take, or an error where the agent would stop.
type drift struct {
	what string
	// of names the selection: a bind's name, or "assert" for the step's
	// first selection assert.
	of         string
	body       string
	structured string
	want       string // the value, as JSON text; "" with stop set
	stop       bool   // the selection must fail or, for an assert, not hold
}

// TestDecisionFindings holds the compiler to each finding of the
// [decisions] issue (#33) that concerns it, on traces shaped like the
// recordings of real servers (server-filesystem, server-memory,
// @executeautomation/database-server, server-everything: traces 43–50).
// Each case names lines the compiled skill must and must not have, and
// worlds that drifted from the recording, in which the selection the
// skill holds must follow the agent's reason — or stop where the agent
// would stop. Every case failed on main before the change (see the
// branch's report for the run).
func TestDecisionFindings(t *testing.T) {
	tests := []struct {
		finding string
		trace   string
		want    []string
		wantNot []string
		drifts  []drift
	}{
		{
			finding: "a listing of logs: the newest file, not a fixed line",
			trace:   "43-logs-newest.jsonl",
			want: []string{`- bind: file_name = max(lines /^\[FILE\] (?<file>app-[^\s|,;\[\]()"']*?\.log)$/ by file as name).file`,
				`- action: read_text_file {"path": "/srv/logs/{{file_name}}"}`},
			wantNot: []string{`(?:.*\n){`, `body contains "[FILE] README.md"`, `body contains "[DIR] archive"`},
			drifts: []drift{
				{what: "a newer log appears", of: "file_name", body: "[DIR] archive\n[FILE] app-2026-11-28.log\n[FILE] app-2026-11-29.log\n[FILE] app-2026-11-30.log\n[FILE] app-2026-12-01.log\n[FILE] README.md", want: `"app-2026-12-01.log"`},
				{what: "an older log is added above", of: "file_name", body: "[FILE] app-2026-10-01.log\n[DIR] archive\n[FILE] app-2026-11-29.log\n[FILE] app-2026-11-30.log", want: `"app-2026-11-30.log"`},
			},
		},
		{
			finding: "a count the agent wrote into prose (\"2 open bugs\") is counted again, not sent as recorded (the lead's independent check, real server-memory)",
			trace:   "75-memory-count-open-recorded.jsonl",
			want: []string{`- bind: count = count(json.entities where entityType == "open-bug")`,
				`- action: add_observations {"observations": [{"entityName": "Umbrella", "contents": ["{{count}} open bugs"]}]}`},
			wantNot: []string{`"2 open bugs"`, `count(json.entities where entityType == "open-bug") > 0`},
			drifts: []drift{
				{what: "one more open bug", of: "count", structured: `{"entities":[{"name":"BUG-1","entityType":"open-bug","observations":[]},{"name":"BUG-3","entityType":"open-bug","observations":[]},{"name":"BUG-5","entityType":"open-bug","observations":[]},{"name":"BUG-2","entityType":"closed-bug","observations":[]}],"relations":[]}`, want: `3`},
				{what: "a closed bug listed first", of: "count", structured: `{"entities":[{"name":"BUG-4","entityType":"closed-bug","observations":[]},{"name":"BUG-1","entityType":"open-bug","observations":[]},{"name":"BUG-3","entityType":"open-bug","observations":[]}],"relations":[]}`, want: `2`},
			},
		},
		{
			finding: "the same, recorded through reelier mcp from the real server-filesystem",
			trace:   "51-fs-newest-log-recorded.jsonl",
			want:    []string{`- bind: file_name = max(lines /^\[FILE\] (?<file>app-[^\s|,;\[\]()"']*?\.log)$/ by file as name).file`},
			wantNot: []string{`(?:.*\n){`},
			drifts: []drift{
				{what: "a newer log and an older one appear", of: "file_name", body: "[FILE] README.md\n[FILE] app-2026-01-01.log\n[FILE] app-2026-11-28.log\n[FILE] app-2026-11-29.log\n[FILE] app-2026-11-30.log\n[FILE] app-2026-12-01.log\n[DIR] archive", want: `"app-2026-12-01.log"`},
			},
		},
		{
			finding: "several entities where an unrelated one sorts first: the lead the note names, no assert on positions",
			trace:   "44-memory-leads.jsonl",
			want:    []string{`- bind: entity_name = only(json.entities where name == "Lead-0088").name`},
			wantNot: []string{`json.entities.0.`, `json.entities.1.`},
			drifts: []drift{
				{what: "an older lead sorts first", of: "entity_name", structured: `{"entities":[{"type":"entity","name":"Lead-0007","entityType":"lead","observations":[]},{"type":"entity","name":"Lead-0042","entityType":"lead","observations":[]},{"type":"entity","name":"Lead-0088","entityType":"lead","observations":[]}],"relations":[]}`, want: `"Lead-0088"`},
				{what: "the lead is gone", of: "entity_name", structured: `{"entities":[{"type":"entity","name":"Lead-0042","entityType":"lead","observations":[]}],"relations":[]}`, stop: true},
			},
		},
		{
			finding: "the customer already exists: the replay stops where the agent would not have created it",
			trace:   "45-memory-create-if-absent.jsonl",
			want:    []string{`- assert: count(json.entities where name == "Acme Corp") == 0`},
			wantNot: []string{`"entityType": "{{`, `json.entities.0.`},
			drifts: []drift{
				{what: "the customer exists", of: "assert", structured: `{"entities":[{"type":"entity","name":"Acme Corp","entityType":"customer","observations":[]}],"relations":[]}`, stop: true},
				{what: "only an unrelated customer", of: "assert", structured: `{"entities":[{"type":"entity","name":"Acme Labs","entityType":"customer","observations":[]},{"type":"entity","name":"Zed","entityType":"customer","observations":[]}],"relations":[]}`, want: `0`},
			},
		},
		{
			finding: "a value twice — a task's id and another task's parent_id: the picked task's own id is bound",
			trace:   "46-db-task-parent.jsonl",
			want:    []string{`- bind: id = only(json where title == "Fix login").id`, `- action: write_query {"query": "UPDATE tasks SET status = 'done' WHERE id = '{{id}}'"}`},
			wantNot: []string{`parent_id = `, `json.0.`},
			drifts: []drift{
				{what: "one more task on top", of: "id", body: `[{"id":"TASK-1013","title":"Refactor auth","parent_id":"TASK-1007","status":"open"},{"id":"TASK-1012","title":"Write tests for login","parent_id":"TASK-1007","status":"open"},{"id":"TASK-1007","title":"Fix login","parent_id":null,"status":"open"}]`, want: `"TASK-1007"`},
			},
		},
		{
			finding: "a table as text rows: the row with the lowest stock, read whole",
			trace:   "47-db-csv-lowest.jsonl",
			want:    []string{`- bind: sku = min(lines /^"(?<sku>SKU-[^\s|,;\[\]()"']*?)","(?<name>[^"]*)",(?<stock>-?\d+(?:\.\d+)?)$/ by stock as number).sku`},
			wantNot: []string{`(?:.*\n){`, `"Gadget",12`},
			drifts: []drift{
				{what: "re-sorted, another row lowest", of: "sku", body: "sku,name,stock\n\"SKU-1003\",\"Widget\",1\n\"SKU-1001\",\"Gadget\",12\n\"SKU-1002\",\"Gizmo\",3\n", want: `"SKU-1003"`},
				{what: "a tie for the lowest", of: "sku", body: "sku,name,stock\n\"SKU-1001\",\"Gadget\",3\n\"SKU-1002\",\"Gizmo\",3\n", stop: true},
			},
		},
		{
			finding: "prose is not bound into an argument whose schema fixes the value (an enum)",
			trace:   "48-everything-enum.jsonl",
			want:    []string{`- action: get-resource-reference {"resourceType": "Text", "resourceId": 2}`},
			wantNot: []string{`resource_type = `},
		},
		{
			finding: "no customer found, or two: the replay stops; ids are looked up, not recorded",
			trace:   "49-db-customer-update.jsonl",
			want:    []string{`- bind: id = only(json where name == "Globex").id`, `- action: write_query {"query": "UPDATE customers SET tier = 'gold' WHERE id = '{{id}}'"}`},
			wantNot: []string{`json.0.`, `CUST-7301'"}`},
			drifts: []drift{
				{what: "no customer", of: "id", body: `[]`, stop: true},
				{what: "two customers", of: "id", body: `[{"id":"CUST-7301","name":"Globex","tier":"silver"},{"id":"CUST-7399","name":"Globex","tier":"bronze"}]`, stop: true},
				{what: "the id reassigned", of: "id", body: `[{"id":"CUST-9100","name":"Globex","tier":"silver"}]`, want: `"CUST-9100"`},
			},
		},
		{
			finding: "one more overdue invoice: the total and the ids are computed again",
			trace:   "50-db-overdue-sum.jsonl",
			want: []string{`- bind: ids = join(json where status == "overdue" by id as name).id`, `- bind: total = sum(json where status == "overdue").amount`,
				`- action: write_query {"query": "INSERT INTO reminders (customer, total, invoices) VALUES ('Globex', {{total}}, '{{ids}}')"}`},
			wantNot: []string{`1650.75`, `INV-2001,`},
			drifts: []drift{
				{what: "one more overdue", of: "total", body: `[{"id":"INV-2001","customer":"Globex","amount":1200.5,"status":"overdue"},{"id":"INV-2002","customer":"Globex","amount":300,"status":"paid"},{"id":"INV-2003","customer":"Globex","amount":450.25,"status":"overdue"},{"id":"INV-2004","customer":"Globex","amount":99.25,"status":"overdue"}]`, want: `1750`},
				{what: "one more overdue", of: "ids", body: `[{"id":"INV-2001","customer":"Globex","amount":1200.5,"status":"overdue"},{"id":"INV-2002","customer":"Globex","amount":300,"status":"paid"},{"id":"INV-2003","customer":"Globex","amount":450.25,"status":"overdue"},{"id":"INV-2004","customer":"Globex","amount":99.25,"status":"overdue"}]`, want: `"INV-2001,INV-2003,INV-2004"`},
			},
		},
		{
			finding: "an order for the lowest stock: nothing open for that sku, the picked stock asserted, the quantity asked about",
			trace:   "70-sqlite-restock-lowest.jsonl",
			want: []string{`- bind: sku = min(json by stock as number).sku`,
				`- assert: count(json where sku == "{{sku}}") == 0`,
				`- assert: min(json by stock as number).stock == 12`},
			wantNot: []string{`- assert: count(json) == 0`},
		},
		{
			finding: "a reminder: the overdue invoices counted, sorted and summed again; none overdue or a reminder already sent stops",
			trace:   "71-sqlite-overdue-reminder.jsonl",
			want: []string{`- bind: numbers = join(json where status == "overdue" by number as name).number`,
				`- bind: count = count(json where status == "overdue")`,
				`- assert: count(json where status == "overdue") > 0`,
				`- assert: count(json) == 0`,
				`- action: write_query {"query": "INSERT INTO reminders (customer, invoices, invoice_count, total) VALUES ('Globex', '{{numbers}}', {{count}}, {{total}})"}`},
			drifts: []drift{
				{what: "rows reversed", of: "numbers", body: `[{"number":"INV-1005","amount":975,"status":"overdue"},{"number":"INV-1004","amount":2300,"status":"open"},{"number":"INV-1003","amount":450,"status":"overdue"},{"number":"INV-1001","amount":1200,"status":"paid"}]`, want: `"INV-1003,INV-1005"`},
				{what: "one more overdue", of: "count", body: `[{"number":"INV-1001","amount":1200,"status":"paid"},{"number":"INV-1003","amount":450,"status":"overdue"},{"number":"INV-1004","amount":2300,"status":"open"},{"number":"INV-1005","amount":975,"status":"overdue"},{"number":"INV-1006","amount":610,"status":"overdue"}]`, want: `3`},
			},
		},
		{
			finding: "a CSV export whose skus differ in prefix: the lowest margin, not the recorded sku's shape",
			trace:   "72-sqlite-csv-lowest-margin.jsonl",
			want:    []string{`by margin_pct as number).sku`},
			drifts: []drift{
				{what: "another product lowest", of: "sku", body: "sku,name,margin_pct\n\"BLT-204\",\"Hex bolt M8\",31\n\"NUT-118\",\"Lock nut M8\",22\n\"WSH-330\",\"Washer 8 mm\",19\n\"SCR-512\",\"Wood screw 4x40\",7\n", want: `"SCR-512"`},
			},
		},
		{
			finding: "a short id inside SQL after its own key: the only active customer's id, looked up",
			trace:   "73-sqlite-customer-upgrade.jsonl",
			want: []string{`- bind: id = only(json where status == "active").id`,
				`- action: write_query {"query": "UPDATE customers SET tier = 'gold' WHERE id = {{id}}"}`},
			drifts: []drift{
				{what: "two active", of: "id", body: `[{"id":12,"name":"Acme Corp","status":"active"},{"id":15,"name":"Acme Inc","status":"active"}]`, stop: true},
				{what: "none active", of: "id", body: `[{"id":12,"name":"Acme Corp","status":"archived"}]`, stop: true},
				{what: "another one active", of: "id", body: `[{"id":12,"name":"Acme Corp","status":"archived"},{"id":15,"name":"Acme Inc","status":"active"}]`, want: `15`},
			},
		},
		{
			finding: "a summary: how many lines the total was summed over is counted again",
			trace:   "74-sqlite-latest-report.jsonl",
			want: []string{`- bind: count = count(json)`,
				`- action: write_query {"query": "INSERT OR REPLACE INTO summaries (file, regions, total) VALUES ('{{file}}', {{count}}, {{total}})"}`},
			drifts: []drift{
				{what: "a region added", of: "count", body: `[{"region":"north","revenue":1},{"region":"south","revenue":2},{"region":"west","revenue":3},{"region":"east","revenue":4}]`, want: `4`},
			},
		},
		{
			finding: "the same, recorded through reelier mcp from the real database-server on SQLite",
			trace:   "52-db-overdue-recorded.jsonl",
			want: []string{`- bind: ids = join(json where status == "overdue" by id as name).id`, `- bind: total = sum(json where status == "overdue").amount`,
				`- action: write_query {"query": "INSERT INTO reminders (customer, total, invoices) VALUES ('Globex', {{total}}, '{{ids}}')"}`},
			wantNot: []string{`1650.75`},
			drifts: []drift{
				{what: "one more overdue", of: "total", body: "[\n  {\n    \"id\": \"INV-2001\",\n    \"customer\": \"Globex\",\n    \"amount\": 1200.5,\n    \"status\": \"overdue\"\n  },\n  {\n    \"id\": \"INV-2004\",\n    \"customer\": \"Globex\",\n    \"amount\": 99.25,\n    \"status\": \"overdue\"\n  }\n]", want: `1299.75`},
			},
		},
		{
			finding: "git: the release commit is the newest commit whose subject starts with the note's word; the tag's name follows it; an existing tag stops the replay at the listing",
			trace:   "52-git-tag-release.jsonl",
			want: []string{`- bind: commit = max(json.commits where subject matches /^release:/ by subject as name).hash`,
				`- assert: count(json.tags where name == "v{{release_name}}") == 0`,
				`- action: git_tag {"path": "/world/git-tag-release/repo", "mode": "create", "tagName": "v{{release_name}}", "commit": "{{commit}}", "message": "Release {{release_name}}"}`},
			wantNot: []string{`json.commits.1.`, `"tagName": "v2.4.0"`},
			drifts: []drift{
				{what: "a docs commit on top", of: "commit", structured: `{"success":true,"commits":[{"hash":"f1","shortHash":"f1","subject":"docs: typo"},{"hash":"d0","shortHash":"d0","subject":"docs: changelog wording"},{"hash":"a19","shortHash":"a19","subject":"release: 2.4.0"},{"hash":"281","shortHash":"281","subject":"release: 2.3.0"}]}`, want: `"a19"`},
				{what: "a newer release", of: "commit", structured: `{"success":true,"commits":[{"hash":"b25","shortHash":"b25","subject":"release: 2.5.0"},{"hash":"a19","shortHash":"a19","subject":"release: 2.4.0"},{"hash":"281","shortHash":"281","subject":"release: 2.3.0"}]}`, want: `"b25"`},
				{what: "no release commit", of: "commit", structured: `{"success":true,"commits":[{"hash":"d0","shortHash":"d0","subject":"docs: changelog wording"}]}`, stop: true},
			},
		},
		{
			finding: "git: the merged feature branch is the only branch named feature/…; two of them stop the replay",
			trace:   "53-git-prune-merged-branch.jsonl",
			want:    []string{`- bind: branch_name = only(json.branches where name matches /^feature\//).name`},
			wantNot: []string{`json.branches.0.`},
			drifts: []drift{
				{what: "a merged bugfix branch first", of: "branch_name", structured: `{"success":true,"mode":"list","branches":[{"name":"bugfix/typo","current":false},{"name":"feature/login-form","current":false},{"name":"main","current":true}]}`, want: `"feature/login-form"`},
				{what: "two merged feature branches", of: "branch_name", structured: `{"success":true,"mode":"list","branches":[{"name":"feature/dark-mode","current":false},{"name":"feature/login-form","current":false},{"name":"main","current":true}]}`, stop: true},
				{what: "none merged", of: "branch_name", structured: `{"success":true,"mode":"list","branches":[{"name":"main","current":true}]}`, stop: true},
			},
		},
		{
			finding: "git: the oldest release candidate is the lowest version among the tags shaped like it, and there must be another left",
			trace:   "54-git-drop-oldest-rc.jsonl",
			want: []string{`- bind: tag_name = min(json.tags where name matches /^v\d+\.\d+\.\d+-rc\.\d+$/ by name as version).name`,
				`- assert: count(json.tags where name matches /^v\d+\.\d+\.\d+-rc\.\d+$/) > 1`},
			wantNot: []string{`json.tags.2.`},
			drifts: []drift{
				{what: "a newer rc", of: "tag_name", structured: `{"success":true,"mode":"list","tags":[{"name":"v3.1.0-rc.1"},{"name":"v3.0.0"},{"name":"v3.0.0-rc.2"},{"name":"v3.0.0-rc.1"},{"name":"v2.9.0"}]}`, want: `"v3.0.0-rc.1"`},
				{what: "an older rc", of: "tag_name", structured: `{"success":true,"mode":"list","tags":[{"name":"v3.0.0"},{"name":"v3.0.0-rc.2"},{"name":"v3.0.0-rc.1"},{"name":"v2.9.0"},{"name":"v2.9.0-rc.1"}]}`, want: `"v2.9.0-rc.1"`},
			},
		},
		{
			finding: "git: the fix is the only commit whose subject starts with fix:, bound by its own hash (not its child's parents entry); an existing backport branch stops the replay at the listing",
			trace:   "55-git-backport-fix.jsonl",
			want: []string{`- bind: object = only(json.commits where subject matches /^fix:/).hash`,
				`- assert: count(json.branches where name == "backport/{{shortHash}}") == 0`},
			wantNot: []string{`json.commits.1.`, `.parents`},
			drifts: []drift{
				{what: "one more commit on top", of: "object", structured: `{"success":true,"commits":[{"hash":"c9","subject":"chore: bump","parents":["13"]},{"hash":"13","subject":"docs: release notes","parents":["ba"]},{"hash":"ba","subject":"fix: rounding in totals","parents":["20"]}]}`, want: `"ba"`},
				{what: "a newer fix", of: "object", structured: `{"success":true,"commits":[{"hash":"f2","subject":"fix: tax","parents":["13"]},{"hash":"13","subject":"docs: release notes","parents":["ba"]},{"hash":"ba","subject":"fix: rounding in totals","parents":["20"]}]}`, stop: true},
			},
		},
		{
			finding: "memory: the account manager the agent read in the customer's observation, not the manages relation",
			trace:   "56-memory-renewal-followup.jsonl",
			want: []string{`- bind: account_manager = body match /"Account manager: ((?:[^"\\]|\\.)*)"/`,
				`- action: add_observations {"observations": [{"entityName": "{{entity_name}}", "contents": ["Renewal call booked with {{account_manager}}"]}]}`},
			wantNot: []string{`json.relations.0.from`, `"from"\s*:`, `with Priya Raman`},
		},
		{
			finding: "everything: a city the note names as a setting of an earlier result is bound, though the schema lists cities",
			trace:   "57-everything-weather-load.jsonl",
			want:    []string{`- action: get-structured-content {"location": "{{location}}"}`, `- bind: location = json.SITE_CITY`},
			wantNot: []string{`"location": "Chicago"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.finding, func(t *testing.T) {
			tr, err := trace.Load(filepath.Join("testdata", "traces", tt.trace))
			if err != nil {
				t.Fatal(err)
			}
			out, err := compile.Compile(tr, compile.Options{Source: tt.trace, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			src := string(format.Source(out.Skill))
			for _, w := range tt.want {
				if !strings.Contains(src, w+"\n") {
					t.Errorf("missing line: %s", w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(src, w) {
					t.Errorf("must not contain %q", w)
				}
			}
			for _, d := range tt.drifts {
				sel, isAssert := findSelection(out.Skill, d.of)
				if sel == nil {
					t.Errorf("%s: no selection %s in the skill", d.what, d.of)
					continue
				}
				obs := &tool.Observation{Status: 200, Body: d.body}
				if d.structured != "" {
					obs.Body, obs.Structured = d.structured, []byte(d.structured)
				}
				v, found, err := replay.SelectionValue(obs, sel.Sel)
				got := ""
				if err == nil && found {
					got = jsonText(v)
				}
				stopped := err != nil || !found || isAssert && got != jsonText(sel.Value)
				switch {
				case d.stop && !stopped:
					t.Errorf("%s: %s gave %s; the replay must stop there", d.what, format.Selection(sel.Sel), got)
				case !d.stop && (err != nil || !sameNumberOrText(got, d.want)):
					t.Errorf("%s: %s gave %s (%v); want %s", d.what, format.Selection(sel.Sel), got, err, d.want)
				}
			}
			if t.Failed() {
				t.Logf("compiled skill:\n%s", src)
			}
		})
	}
}

// selOf is a selection of the skill and, for an assert, the value it
// compares with.
type selOf struct {
	Sel   *ast.Selection
	Value ast.Value
}

// findSelection finds the bind of a name, or the first selection assert.
func findSelection(s *ast.Skill, of string) (*selOf, bool) {
	for _, st := range s.Steps {
		if of == "assert" {
			for _, a := range st.Asserts {
				if x, ok := a.Expr.(*ast.SelectionAssert); ok {
					return &selOf{Sel: x.Sel, Value: x.Value}, true
				}
			}
			continue
		}
		for _, b := range st.Binds {
			if x, ok := b.Expr.(*ast.SelectionBind); ok && x.Name == of {
				return &selOf{Sel: x.Sel}, false
			}
		}
	}
	return nil, false
}

// jsonText renders a selection's value, or an assert's literal, as JSON
// text.
func jsonText(v any) string {
	switch v := v.(type) {
	case ast.Value:
		return format.Value(v)
	}
	return runtimeJSON(v)
}

func runtimeJSON(v any) string { return jsondata.String(v) }

// sameNumberOrText compares two JSON texts, numbers by value (1750.00 is 1750).
func sameNumberOrText(a, b string) bool {
	x, errA := strconv.ParseFloat(a, 64)
	y, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return x == y
	}
	return a == b
}
