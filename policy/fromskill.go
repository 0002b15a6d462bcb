package policy

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/reelier/reelier/lang/ast"
	"go.yaml.in/yaml/v3"
)

// FromSkill writes a policy that allows exactly the calls a skill makes —
// each step's tool with the argument keys its action writes, each of the
// JSON type written (a string that is one template hole, "{{x}}", may
// fill to any type) — and denies every other call (default: deny). The
// file returned is checked with e: it loads. name names the skill in the
// file's header comment.
func FromSkill(s *ast.Skill, name string, e Engine) ([]byte, error) {
	if e == nil {
		return nil, errors.New("policy from-skill: no policy engine to check the policy written")
	}
	type rule struct {
		Name    string `yaml:"name"`
		When    string `yaml:"when"`
		Action  string `yaml:"action"`
		Message string `yaml:"message,omitempty"`
	}
	var rules []rule
	seen := map[string]bool{}
	for _, st := range s.Steps {
		if st.Action == nil || st.Action.Tool == "" {
			continue
		}
		when := shapeExpr(st.Action.Tool, st.Action.Args)
		if seen[when] {
			continue
		}
		seen[when] = true
		rules = append(rules, rule{
			Name:    fmt.Sprintf("step-%d-%s", st.Number, st.Action.Tool),
			When:    when,
			Action:  string(Allow),
			Message: fmt.Sprintf("step %d of %s", st.Number, name),
		})
	}
	doc := struct {
		Version int    `yaml:"version"`
		Default string `yaml:"default"`
		Rules   []rule `yaml:"rules"`
	}{1, string(Deny), rules}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Written by `reelier policy from-skill` from %s: the calls its steps\n# make are allowed, with the argument keys and types they write; every\n# other call is denied.\n", oneLine(name))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if _, err := e.Parse(name+" (policy)", b.Bytes()); err != nil {
		return nil, fmt.Errorf("the policy written for %s does not load: %w", name, err)
	}
	return b.Bytes(), nil
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// shapeExpr is the condition a call of tool with the shape of args meets.
func shapeExpr(tool string, args ast.Value) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tool == %s", strconv.Quote(tool))
	obj, _ := args.(*ast.Object)
	var keys []string
	types := map[string]string{}
	if obj != nil {
		for _, m := range obj.Members {
			if _, dup := types[m.Key]; dup {
				continue
			}
			keys = append(keys, m.Key)
			types[m.Key] = celType(m.Value)
		}
	}
	sorted := slices.Clone(keys)
	slices.Sort(sorted)
	quoted := make([]string, len(sorted))
	for k, key := range sorted {
		quoted[k] = strconv.Quote(key)
	}
	fmt.Fprintf(&b, " && args.all(k, k in [%s])", strings.Join(quoted, ", "))
	for _, key := range keys {
		sel := "args[" + strconv.Quote(key) + "]"
		fmt.Fprintf(&b, " && %s in args", strconv.Quote(key))
		if t := types[key]; t != "" {
			fmt.Fprintf(&b, " && type(%s) == %s", sel, t)
		}
	}
	return b.String()
}

// celType is the CEL type a JSON value decodes to, "" for any.
func celType(v ast.Value) string {
	switch v := v.(type) {
	case *ast.String:
		if len(v.Holes) == 1 && strings.TrimSpace(v.Value) == "{{"+v.Holes[0].Written+"}}" {
			return ""
		}
		return "string"
	case *ast.Number:
		return "double"
	case *ast.Bool:
		return "bool"
	case *ast.Null:
		return "null_type"
	case *ast.Object:
		return "map"
	case *ast.Array:
		return "list"
	}
	return ""
}
