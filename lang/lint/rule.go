package lint

import (
	"errors"
	"fmt"
	"strings"

	"github.com/reelier/reelier/lang/ast"
)

// DocsURL is where the generated rule documentation is published; each
// rule's URL is this address with the rule name as the fragment.
const DocsURL = "https://github.com/reelier/reelier/blob/main/docs/lint.md"

// Category groups rules by the kind of harm they prevent.
type Category string

// The categories, in the order the documentation lists them.
const (
	CategorySyntax       Category = "syntax"       // the file does not parse
	CategoryCorrectness  Category = "correctness"  // the step will fail or check the wrong thing
	CategoryVerification Category = "verification" // the step runs but proves nothing
	CategoryDrift        Category = "drift"        // the step works today and breaks as data changes
	CategorySafety       Category = "safety"       // the step can do harm or leak a credential
	CategoryClarity      Category = "clarity"      // the skill misleads its reader
)

// Categories lists every category in documentation order.
var Categories = []Category{CategorySyntax, CategoryCorrectness, CategoryVerification, CategoryDrift, CategorySafety, CategoryClarity}

// Rule is one lint check.
type Rule struct {
	// Name is the stable lower_snake identifier used in configuration,
	// suppression comments and output.
	Name string
	// Title is a one-line summary.
	Title string
	// Doc explains what the rule finds and why it matters, in Markdown.
	Doc string
	// FixDoc says what the suggested fix does, or "" when there is none.
	FixDoc string
	// Example is a small skill the rule reports on; the documentation shows
	// it with its diagnostics and, when there is a fix, the fixed text.
	Example string
	// Category groups the rule in the documentation.
	Category Category
	// DefaultSeverity is the severity of the rule's findings when the
	// configuration does not say otherwise.
	DefaultSeverity ast.Severity
	// Run inspects the skill and reports through the pass.
	Run func(*Pass)
	// TextOnly says Run reads only the file's text (Pass.Src), never the
	// tree, so it runs on a file that does not parse too.
	TextOnly bool
}

// URL returns the address of the rule's documentation section.
func (r *Rule) URL() string { return DocsURL + "#" + r.Name }

// registry lists every rule, in documentation order within each category.
var registry = []*Rule{
	ruleParseError,
	ruleUnboundVariable,
	ruleTodayOffset,
	ruleNumericCompare,
	ruleRegex,
	ruleHTTPURL,
	ruleToolSignature,
	ruleApprovalUnknownStep,
	ruleUncheckedStep,
	ruleUnusedBind,
	ruleOpenQuestion,
	ruleDriftIndex,
	rulePositionalPick,
	ruleDateLiteral,
	ruleEffectVerb,
	ruleEffectArguments,
	ruleSecretLiteral,
	ruleApprovalStale,
	ruleControlCharacter,
	ruleShadowedBind,
	ruleReservedName,
	ruleDuplicateTitle,
	ruleAgentSkill,
	ruleUndocumentedInput,
}

// registryErr records what is wrong with the registry; the package checks
// it once at initialisation and New refuses to build a driver over it.
var registryErr = Validate(registry)

// All returns every rule, in documentation order.
func All() []*Rule { return append([]*Rule(nil), registry...) }

// Lookup returns the rule with the name, or nil.
func Lookup(name string) *Rule {
	for _, r := range registry {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// Validate checks a set of rules: names unique and lower_snake, titles one
// line, documentation and an example present, a known category and
// severity, and a run function.
func Validate(rules []*Rule) error {
	var errs []error
	seen := map[string]bool{}
	for i, r := range rules {
		if r == nil {
			errs = append(errs, fmt.Errorf("rule %d is nil", i))
			continue
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("rule %q: %s", r.Name, fmt.Sprintf(format, args...)))
		}
		if !isLowerSnake(r.Name) {
			bad("name is not lower_snake")
		}
		if seen[r.Name] {
			bad("name is used twice")
		}
		seen[r.Name] = true
		if r.Title == "" || strings.ContainsAny(r.Title, "\n\r") {
			bad("title must be one non-empty line")
		}
		if strings.TrimSpace(r.Doc) == "" || strings.TrimSpace(r.Example) == "" {
			bad("doc and example must not be empty")
		}
		if !knownCategory(r.Category) {
			bad("unknown category %q", r.Category)
		}
		if r.DefaultSeverity.String() == "unknown" {
			bad("unknown default severity %d", r.DefaultSeverity)
		}
		if r.Run == nil {
			bad("no run function")
		}
	}
	return errors.Join(errs...)
}

func knownCategory(c Category) bool {
	for _, k := range Categories {
		if c == k {
			return true
		}
	}
	return false
}

// isLowerSnake reports whether s is lower-case words joined by single
// underscores: [a-z][a-z0-9]*(_[a-z0-9]+)*.
func isLowerSnake(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '_' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '_' && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
}
