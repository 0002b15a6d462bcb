// Package skillgen generates large, realistic skills for benchmarks: each
// step has an intent, an action with nested arguments and template holes,
// three asserts, a bind and an effect, with prose now and then.
package skillgen

import (
	"fmt"
	"strings"
)

// Skill returns a valid SKILL.md with n steps.
func Skill(n int) []byte {
	var b strings.Builder
	b.WriteString("---\nname: generated\ndescription: A generated skill for benchmarks\n---\n\n# Generated\n\nInputs: none\n\n## Steps\n\n")
	effects := []string{"read", "read", "idempotent-write", "destructive"}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "### Step %d — Fetch page %d of the orders\n", i, i)
		if i%10 == 0 {
			b.WriteString("The API pages by cursor; this step follows the previous one.\n")
		}
		fmt.Fprintf(&b, "- intent: Fetch orders page %d and remember its cursor\n", i)
		cursor := "start"
		if i > 1 {
			cursor = fmt.Sprintf("{{cursor%d}}", i-1)
		}
		fmt.Fprintf(&b, `- action: http.get {"url": "https://api.example.test/orders?page=%d&cursor=%s", "headers": {"accept": "application/json", "x-day": "{{today-7d}}"}, "filter": {"status": ["open", "paid"], "limit": %d}}`+"\n", i, cursor, 50+i%7)
		b.WriteString("- assert: status == 200\n")
		fmt.Fprintf(&b, "- assert: json.orders length >= %d\n", i%3)
		fmt.Fprintf(&b, "- assert: json.orders.%d.id matches /^ord_[a-z0-9]+$/\n", i%5)
		fmt.Fprintf(&b, "- bind: cursor%d = json.next.cursor\n", i)
		fmt.Fprintf(&b, "- effect: %s\n\n", effects[i%len(effects)])
	}
	b.WriteString("## Changelog\n\n- generated\n")
	return []byte(b.String())
}
